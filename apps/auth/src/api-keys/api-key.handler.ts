import { Controller } from '@nestjs/common';
import {
  ApiKeyList,
  ApiKeyPrincipal,
  AuthContracts,
  ConsoleListApiKeysRequest,
  ConsoleRevokeApiKeyRequest,
  CreatedApiKey,
  KeyLimits,
  ResolveApiKeyRequest,
  Success,
} from '@gw/contracts';
import { HandlesRpc } from '@gw/platform';
import {
  AdminCreateApiKeyMessage,
  AdminSetApiKeyLimitsMessage,
  ConsoleCreateApiKeyMessage,
  ConsoleSetApiKeyLimitsMessage,
} from './api-key.messages';
import { ApiKeyService } from './api-key.service';

@Controller()
export class ApiKeyHandler {
  constructor(private readonly apiKeys: ApiKeyService) {}

  @HandlesRpc(AuthContracts.resolveApiKey)
  resolve(request: ResolveApiKeyRequest): Promise<ApiKeyPrincipal> {
    return this.apiKeys.resolve(request.keyHash);
  }

  @HandlesRpc(AuthContracts.adminCreateApiKey, AdminCreateApiKeyMessage)
  adminCreate(request: AdminCreateApiKeyMessage): Promise<CreatedApiKey> {
    return this.apiKeys.adminCreate(request);
  }

  @HandlesRpc(AuthContracts.consoleListApiKeys)
  list(request: ConsoleListApiKeysRequest): Promise<ApiKeyList> {
    return this.apiKeys.list(request.principal);
  }

  @HandlesRpc(AuthContracts.consoleCreateApiKey, ConsoleCreateApiKeyMessage)
  create(request: ConsoleCreateApiKeyMessage): Promise<CreatedApiKey> {
    return this.apiKeys.consoleCreate(request);
  }

  @HandlesRpc(AuthContracts.consoleRevokeApiKey)
  revoke(request: ConsoleRevokeApiKeyRequest): Promise<Success> {
    return this.apiKeys.revoke(request);
  }

  @HandlesRpc(AuthContracts.consoleSetApiKeyLimits, ConsoleSetApiKeyLimitsMessage)
  consoleSetLimits(request: ConsoleSetApiKeyLimitsMessage): Promise<KeyLimits> {
    return this.apiKeys.consoleSetLimits(request);
  }

  @HandlesRpc(AuthContracts.adminSetApiKeyLimits, AdminSetApiKeyLimitsMessage)
  adminSetLimits(request: AdminSetApiKeyLimitsMessage): Promise<KeyLimits> {
    return this.apiKeys.adminSetLimits(request);
  }
}
