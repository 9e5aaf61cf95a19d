import type { ApiKeyPrincipal, GenerationFinishedEvent } from '@gw/contracts';
import { randomUUID } from 'node:crypto';

/** A caller authenticated by an API key of a fresh organization; a test overrides what it asserts on. */
export function apiKeyPrincipal(overrides: Partial<ApiKeyPrincipal> = {}): ApiKeyPrincipal {
  return {
    kind: 'api_key',
    organizationId: randomUUID(),
    apiKeyId: randomUUID(),
    apiKeyName: 'test key',
    apiKeyShort: 'abc123',
    userId: null,
    ...overrides,
  };
}

/** A completed synchronous chat generation of `organizationId`, as inference reports it to billing. */
export function generationFinishedEvent(
  organizationId: string,
  overrides: Partial<GenerationFinishedEvent> = {},
): GenerationFinishedEvent {
  return {
    generationId: `gen_${randomUUID()}`,
    organizationId,
    apiKeyId: null,
    apiKeyName: null,
    apiKeyShort: null,
    userId: null,
    model: 'demo/chat',
    modelDisplayName: 'Demo Chat',
    requestType: 'chat',
    apiType: 'chat_completions',
    responseMode: 'sync',
    status: 'completed',
    finishReason: 'stop',
    provider: 'Mock Alpha',
    usage: { prompt_tokens: 10, completion_tokens: 20, total_tokens: 30 },
    cost: '1.00',
    generationTimeMs: 800,
    latencyMs: 120,
    queueTimeMs: 0,
    attemptsCount: 1,
    isCancelled: false,
    error: null,
    createdAt: new Date().toISOString(),
    completedAt: new Date().toISOString(),
    ...overrides,
  };
}
