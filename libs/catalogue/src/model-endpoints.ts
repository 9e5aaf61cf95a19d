import type { MODEL_ENDPOINTS, ModelType } from '@gw/dto';

export type ModelEndpoint = (typeof MODEL_ENDPOINTS)[number];

/**
 * The endpoint paths that serve each kind of model: the one place they are decided. The catalogue
 * lists these as a model's `endpoints`, and a request on a path not in that list is refused, so the
 * list and what is served cannot disagree.
 */
export const ENDPOINTS_BY_MODEL_TYPE: Readonly<Record<ModelType, readonly ModelEndpoint[]>> = {
  chat: ['/v1/chat/completions', '/v2/chat/completions', '/v1/responses', '/v1/messages'],
  embedding: ['/v1/embeddings'],
  transcription: ['/v1/audio/transcriptions'],
  image: ['/v1/media', '/v2/media', '/v2/images/generations'],
  video: ['/v1/media', '/v2/media'],
  audio: ['/v1/media', '/v2/media'],
};

/**
 * The endpoint a request came through, by the apiType it is recorded under. Chat completions are
 * one API under two version prefixes that always go together, so `/v1` stands for both.
 */
const ENDPOINT_BY_API_TYPE: Readonly<Record<string, ModelEndpoint>> = {
  chat_completions: '/v1/chat/completions',
  responses: '/v1/responses',
  messages: '/v1/messages',
  embeddings: '/v1/embeddings',
  transcriptions: '/v1/audio/transcriptions',
};

export function endpointOfApiType(apiType: string): ModelEndpoint | null {
  return Object.hasOwn(ENDPOINT_BY_API_TYPE, apiType) ? ENDPOINT_BY_API_TYPE[apiType] : null;
}
