import Decimal from 'decimal.js';
import { DomainError, type EmbeddingEncodingFormat, type EmbeddingList } from '@gw/contracts';
import { embeddingCost } from '@gw/pricing';
import type { CatalogueModel, ProviderRoute } from '@gw/catalogue';
import { estimatedTokens } from '../chat/token-estimate';

/** Special tokens a tokenizer may add around one input. */
const TOKENS_PER_INPUT = 8;

export function embeddingInputs(input: string | string[]): string[] {
  return typeof input === 'string' ? [input] : input;
}

/**
 * An upper bound of the input tokens: a byte-level tokenizer never makes more tokens than bytes,
 * plus a few special tokens per input.
 */
export function embeddingPromptBound(inputs: string[]): number {
  return inputs.reduce((sum, text) => sum + Buffer.byteLength(text, 'utf8') + TOKENS_PER_INPUT, 0);
}

/**
 * The providers that can serve the request. `dimensions` needs providers that list it in
 * supported_parameters and a value no larger than the model's `parameters.dimensions.max`.
 */
export function embeddingRoutes(model: CatalogueModel, dimensions: number | undefined): ProviderRoute[] {
  if (dimensions === undefined) return model.routes;
  const routes = model.routes.filter((route) => route.supportedParameters.includes('dimensions'));
  if (routes.length === 0)
    throw new DomainError(
      'invalid_request',
      `The model ${model.entry.id} does not support dimensions`,
      'dimensions',
    );
  const max = model.entry.parameters['dimensions']?.max ?? 0;
  if (dimensions > max)
    throw new DomainError(
      'invalid_request',
      `dimensions must be at most ${max} for the model ${model.entry.id}`,
      'dimensions',
    );
  return routes;
}

/**
 * The providers whose prompt limit (context_length, or per_request_limits.prompt_tokens if lower)
 * takes every input: each text is embedded on its own, so each must fit by its realistic estimate,
 * the one chat prompts are checked with (docs/decisions.md 24, 26). A provider that cannot take one
 * is dropped; none left is a 400 on the first input the most generous provider cannot take
 * (`input`, or `input[i]` in a list), before anything is reserved.
 */
export function routesTakingInputs(
  model: CatalogueModel,
  routes: ProviderRoute[],
  input: string | string[],
): ProviderRoute[] {
  const tokens = embeddingInputs(input).map((text) => estimatedTokens(text));
  const longest = Math.max(...tokens);
  const fitting = routes.filter(
    (route) => route.maxPromptTokens === null || longest <= route.maxPromptTokens,
  );
  if (fitting.length > 0) return fitting;
  const most = Math.max(...routes.map((route) => route.maxPromptTokens ?? 0));
  const index = tokens.findIndex((count) => count > most);
  const param = typeof input === 'string' ? 'input' : `input[${index}]`;
  throw new DomainError(
    'invalid_request',
    `${param} is about ${tokens[index]} tokens, more than ${model.entry.id} takes in one input (at most ${most})`,
    param,
  );
}

/** The most the request can cost at the dearest of its providers, so a fallback never costs more than was held. */
export function maxEmbeddingCost(routes: ProviderRoute[], promptBound: number): Decimal {
  return Decimal.max(...routes.map((route) => embeddingCost(route.pricing, promptBound)));
}

/** As OpenAI encodes it: the vector as little-endian float32 bytes, base64. */
export function float32Base64(vector: number[]): string {
  const bytes = Buffer.alloc(vector.length * 4);
  vector.forEach((value, i) => bytes.writeFloatLE(value, i * 4));
  return bytes.toString('base64');
}

export function embeddingData(vectors: number[][], format: EmbeddingEncodingFormat): EmbeddingList['data'] {
  return vectors.map((vector, index) => ({
    object: 'embedding',
    embedding: format === 'base64' ? float32Base64(vector) : vector,
    index,
  }));
}
