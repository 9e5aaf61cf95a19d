import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { ApiKeyList, ApiKeyPrincipal, AuthContracts, CreatedApiKey, KeyLimits, Success } from '@gw/contracts';
import {
  AdminCreateApiKeyMessage,
  AdminSetApiKeyLimitsMessage,
  ConsoleSetApiKeyLimitsMessage,
  ConsoleCreateApiKeyMessage,
  ConsoleListApiKeysMessage,
  ConsoleRevokeApiKeyMessage,
  ResolveApiKeyMessage,
} from './api-key.messages';
import { ApiKeyService } from './api-key.service';

@Controller()
export class ApiKeyHandler {
  constructor(private readonly apiKeys: ApiKeyService) {}

  @MessagePattern(AuthContracts.resolveApiKey.subject)
  resolve(@Payload() request: ResolveApiKeyMessage): Promise<ApiKeyPrincipal> {
    return this.apiKeys.resolve(request.keyHash);
  }

  @MessagePattern(AuthContracts.adminCreateApiKey.subject)
  adminCreate(@Payload() request: AdminCreateApiKeyMessage): Promise<CreatedApiKey> {
    return this.apiKeys.adminCreate(request);
  }

  @MessagePattern(AuthContracts.consoleListApiKeys.subject)
  list(@Payload() request: ConsoleListApiKeysMessage): Promise<ApiKeyList> {
    return this.apiKeys.list(request.principal);
  }

  @MessagePattern(AuthContracts.consoleCreateApiKey.subject)
  create(@Payload() request: ConsoleCreateApiKeyMessage): Promise<CreatedApiKey> {
    return this.apiKeys.consoleCreate(request);
  }

  @MessagePattern(AuthContracts.consoleRevokeApiKey.subject)
  revoke(@Payload() request: ConsoleRevokeApiKeyMessage): Promise<Success> {
    return this.apiKeys.revoke(request);
  }

  @MessagePattern(AuthContracts.consoleSetApiKeyLimits.subject)
  consoleSetLimits(@Payload() request: ConsoleSetApiKeyLimitsMessage): Promise<KeyLimits> {
    return this.apiKeys.consoleSetLimits(request);
  }

  @MessagePattern(AuthContracts.adminSetApiKeyLimits.subject)
  adminSetLimits(@Payload() request: AdminSetApiKeyLimitsMessage): Promise<KeyLimits> {
    return this.apiKeys.adminSetLimits(request);
  }
}
