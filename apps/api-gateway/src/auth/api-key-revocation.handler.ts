import { Controller } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { ApiKeyRevokedEvent, AuthEvents } from '@gw/contracts';
import { ApiKeyCache } from './api-key-cache';

/** Every replica subscribes without a queue group, so each drops its own cached copy of the key. */
@Controller()
export class ApiKeyRevocationHandler {
  constructor(private readonly cache: ApiKeyCache) {}

  @EventPattern<string>(AuthEvents.apiKeyRevoked.subject)
  revoked(@Payload() event: ApiKeyRevokedEvent): void {
    this.cache.invalidate(event.keyHash);
    this.cache.invalidateApiKeyId(event.apiKeyId);
  }
}
