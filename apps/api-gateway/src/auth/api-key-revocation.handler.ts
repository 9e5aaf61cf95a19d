import { Controller } from '@nestjs/common';
import { ApiKeyRevokedEvent, AuthEvents } from '@gw/contracts';
import { HandlesEvent } from '@gw/platform';
import { ApiKeyCache } from './api-key-cache';

/** Every replica subscribes without a queue group, so each drops its own cached copy of the key. */
@Controller()
export class ApiKeyRevocationHandler {
  constructor(private readonly cache: ApiKeyCache) {}

  @HandlesEvent(AuthEvents.apiKeyRevoked)
  revoked(event: ApiKeyRevokedEvent): void {
    this.cache.invalidate(event.keyHash);
    this.cache.invalidateApiKeyId(event.apiKeyId);
  }
}
