import { UpstreamFailure } from '@gw/paid-generation';
import type { UpstreamSignal } from '../providers/upstream-abort';
import { type UpstreamHttp } from '../providers/upstream-http';

export interface UpstreamEmbeddingCall {
  baseUrl: string;
  apiKey: string | null;
  request: { model: string; input: string[]; dimensions?: number; user?: string };
  /** None where the call is never aborted (an embedding is charged only once complete). */
  signal?: UpstreamSignal;
}

export interface UpstreamEmbeddings {
  /** In input order. */
  vectors: number[][];
  /** Null when the provider did not report usage. */
  promptTokens: number | null;
}

interface OpenAiEmbeddingResponse {
  data?: Array<{ embedding?: unknown; index?: unknown }>;
  usage?: { prompt_tokens?: unknown } | null;
}

/**
 * The OpenAI embeddings wire (OpenAI, OpenRouter, Mock Alpha); baseUrl includes `/v1`. Always
 * asks for floats: the service encodes base64 itself, so every provider answers both formats alike.
 */
export class OpenAiEmbeddingsAdapter {
  constructor(private readonly http: UpstreamHttp) {}

  async embed(call: UpstreamEmbeddingCall): Promise<UpstreamEmbeddings> {
    const headers = { authorization: `Bearer ${call.apiKey ?? ''}`.trim() };
    const response = await this.http.post(
      `${call.baseUrl}/embeddings`,
      headers,
      { ...call.request, encoding_format: 'float' },
      call.signal,
    );
    const body = await this.http.json<OpenAiEmbeddingResponse>(response);
    return {
      vectors: vectorsInOrder(body, call.request.input.length, call.request.dimensions),
      promptTokens: promptTokens(body),
    };
  }
}

/** One vector per input, placed by its `index`; anything else is a protocol failure rather than a wrong answer. */
function vectorsInOrder(
  body: OpenAiEmbeddingResponse,
  inputs: number,
  dimensions: number | undefined,
): number[][] {
  const data = Array.isArray(body.data) ? body.data : [];
  if (data.length !== inputs)
    throw new UpstreamFailure('protocol', `Upstream answered ${data.length} embeddings for ${inputs} inputs`);
  const vectors = new Array<number[]>(inputs);
  for (const item of data) {
    const index = item.index;
    const vector = item.embedding;
    if (
      typeof index !== 'number' ||
      !Number.isInteger(index) ||
      index < 0 ||
      index >= inputs ||
      vectors[index] !== undefined
    ) {
      throw new UpstreamFailure('protocol', 'Upstream answered embeddings with bad indexes');
    }
    if (
      !Array.isArray(vector) ||
      vector.length === 0 ||
      !vector.every((v) => typeof v === 'number' && Number.isFinite(v))
    ) {
      throw new UpstreamFailure('protocol', 'Upstream answered an embedding that is not a list of numbers');
    }
    if (dimensions !== undefined && vector.length !== dimensions) {
      throw new UpstreamFailure(
        'protocol',
        `Upstream answered ${vector.length} dimensions instead of ${dimensions}`,
      );
    }
    vectors[index] = vector as number[];
  }
  return vectors;
}

function promptTokens(body: OpenAiEmbeddingResponse): number | null {
  const tokens = body.usage?.prompt_tokens;
  return typeof tokens === 'number' && Number.isInteger(tokens) && tokens >= 0 ? tokens : null;
}
