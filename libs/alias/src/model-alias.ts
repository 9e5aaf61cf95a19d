/**
 * The alias notation of chat-style endpoints: `<model>@<key>=<value>&<key>=<value>`, with exactly
 * three keys, each equivalent to a body field. Values are taken literally (no percent-decoding), so a
 * provider name may contain spaces.
 */
export const REASONING_EFFORTS = ['max', 'xhigh', 'high', 'medium', 'low', 'minimal', 'none'] as const;
export type ReasoningEffort = (typeof REASONING_EFFORTS)[number];

export interface ModelAlias {
  /** The canonical model id, without the suffix. */
  model: string;
  provider?: string;
  reasoningEffort?: ReasoningEffort;
  allowFallbacks?: boolean;
}

/** Every violation is a 400 on the `model` parameter. */
export class ModelAliasError extends Error {
  readonly param = 'model';

  constructor(message: string) {
    super(message);
    this.name = 'ModelAliasError';
  }
}

const KEYS = ['provider', 'reasoning_effort', 'allow_fallbacks'] as const;
type AliasKey = (typeof KEYS)[number];

export function parseModelAlias(value: string): ModelAlias {
  const at = value.indexOf('@');
  if (at === -1) return { model: value };
  const model = value.slice(0, at);
  const suffix = value.slice(at + 1);
  if (model === '') throw new ModelAliasError(`Invalid model alias "${value}": no model before "@"`);
  if (suffix === '') throw new ModelAliasError(`Invalid model alias "${value}": nothing after "@"`);
  const alias: ModelAlias = { model };
  const seen = new Set<AliasKey>();
  for (const pair of suffix.split('&')) {
    const parts = pair.split('=');
    if (pair === '') throw new ModelAliasError(`Invalid model alias "${value}": empty key=value pair`);
    if (parts.length === 1)
      throw new ModelAliasError(`Invalid model alias "${value}": key "${pair}" has no "="`);
    if (parts.length > 2)
      throw new ModelAliasError(`Invalid model alias "${value}": the value of "${parts[0]}" contains "="`);
    const [key, raw] = parts;
    if (!isAliasKey(key)) {
      throw new ModelAliasError(
        `Invalid model alias "${value}": unknown key "${key}" (supported: ${KEYS.join(', ')})`,
      );
    }
    if (seen.has(key)) throw new ModelAliasError(`Invalid model alias "${value}": key "${key}" repeats`);
    seen.add(key);
    if (raw === '') throw new ModelAliasError(`Invalid model alias "${value}": empty value for "${key}"`);
    assign(alias, key, raw, value);
  }
  return alias;
}

function isAliasKey(key: string): key is AliasKey {
  return (KEYS as readonly string[]).includes(key);
}

function assign(alias: ModelAlias, key: AliasKey, raw: string, whole: string): void {
  switch (key) {
    case 'provider':
      alias.provider = raw;
      return;
    case 'reasoning_effort':
      if (!(REASONING_EFFORTS as readonly string[]).includes(raw)) {
        throw new ModelAliasError(
          `Invalid model alias "${whole}": reasoning_effort must be one of ${REASONING_EFFORTS.join(', ')}`,
        );
      }
      alias.reasoningEffort = raw as ReasoningEffort;
      return;
    case 'allow_fallbacks':
      if (raw !== 'true' && raw !== 'false') {
        throw new ModelAliasError(`Invalid model alias "${whole}": allow_fallbacks must be true or false`);
      }
      alias.allowFallbacks = raw === 'true';
      return;
  }
}

/** The body fields an alias can stand for. */
export interface AliasableRequest {
  model: string;
  provider?: Record<string, unknown> | null;
  reasoning?: Record<string, unknown> | null;
}

/**
 * Applies the alias of `body.model` to the body: the canonical model id, and the alias values moved
 * into `provider.only`, `provider.allow_fallbacks` and `reasoning.effort`. An alias key that the
 * body also sets is a conflict.
 */
export function applyModelAlias<T extends AliasableRequest>(body: T): T {
  const alias = parseModelAlias(body.model);
  if (alias.model === body.model) return body;
  const provider = body.provider ?? undefined;
  const reasoning = body.reasoning ?? undefined;
  if (alias.provider !== undefined && provider !== undefined) {
    throw new ModelAliasError(
      'The model alias sets provider, which conflicts with the provider object of the body',
    );
  }
  if (alias.reasoningEffort !== undefined && reasoning?.['effort'] !== undefined) {
    throw new ModelAliasError(
      'The model alias sets reasoning_effort, which conflicts with reasoning.effort of the body',
    );
  }
  if (alias.allowFallbacks !== undefined && provider?.['allow_fallbacks'] !== undefined) {
    throw new ModelAliasError(
      'The model alias sets allow_fallbacks, which conflicts with provider.allow_fallbacks of the body',
    );
  }
  const mergedProvider = {
    ...(provider ?? {}),
    ...(alias.provider !== undefined ? { only: [alias.provider] } : {}),
    ...(alias.allowFallbacks !== undefined ? { allow_fallbacks: alias.allowFallbacks } : {}),
  };
  return {
    ...body,
    model: alias.model,
    ...(Object.keys(mergedProvider).length > 0 ? { provider: mergedProvider } : {}),
    ...(alias.reasoningEffort !== undefined
      ? { reasoning: { ...(reasoning ?? {}), effort: alias.reasoningEffort } }
      : {}),
  };
}
