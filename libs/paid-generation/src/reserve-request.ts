import type {
  GenerationRequestType,
  GenerationResponseMode,
  Principal,
  ReserveCreditRequest,
} from '@gw/contracts';
import type Decimal from 'decimal.js';
import { costString } from '@gw/pricing';

export interface ReservedGeneration {
  generationId: string;
  principal: Principal;
  model: string;
  requestType: GenerationRequestType;
  apiType: string;
  responseMode: GenerationResponseMode;
}

/**
 * The hold asked of billing before a paid upstream call. The context travels with it so that a
 * reservation which expires unsettled is still recorded in history with its model, type and key.
 */
export function reserveRequest(
  generation: ReservedGeneration,
  maxAmount: Decimal,
  minAmount: Decimal,
): ReserveCreditRequest {
  const { principal } = generation;
  const apiKey = principal.kind === 'api_key' ? principal : null;
  return {
    generationId: generation.generationId,
    organizationId: principal.organizationId,
    apiKeyId: apiKey?.apiKeyId ?? null,
    maxAmount: costString(maxAmount),
    minAmount: costString(minAmount),
    model: generation.model,
    requestType: generation.requestType,
    apiType: generation.apiType,
    responseMode: generation.responseMode,
    apiKeyName: apiKey?.apiKeyName ?? null,
    apiKeyShort: apiKey?.apiKeyShort ?? null,
    userId: principal.userId ?? null,
  };
}
