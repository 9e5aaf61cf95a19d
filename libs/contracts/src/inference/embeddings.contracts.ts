import { IsObject } from 'class-validator';
import { rpc } from '../contract';
import { PaidRequestEnvelope } from './paid-request';

export type EmbeddingEncodingFormat = 'float' | 'base64';

/** The body of `POST /v1/embeddings` as the gateway validated it (EmbeddingRequestDto, validated again by the service). */
export interface EmbeddingBody {
  model: string;
  input: string | string[];
  encoding_format?: EmbeddingEncodingFormat;
  dimensions?: number;
  user?: string;
}

/** The body is the public API's: the inference service validates it with EmbeddingRequestDto. */
export class EmbeddingRequest extends PaidRequestEnvelope {
  @IsObject()
  body!: EmbeddingBody;
}

export interface EmbeddingUsage {
  prompt_tokens: number;
  total_tokens: number;
  /** Roubles rounded to 8 places; `cost` is the same number. */
  cost_rub: number;
  cost: number;
}

/** The "Embedding list" of the interface: one item per input, `index` its position. */
export interface EmbeddingList {
  id: string;
  object: 'list';
  data: Array<{ object: 'embedding'; embedding: number[] | string; index: number }>;
  model: string;
  usage: EmbeddingUsage;
}

export const EmbeddingsContracts = {
  create: rpc<EmbeddingRequest, EmbeddingList>('inference.v1.create-embeddings', EmbeddingRequest),
} as const;
