/**
 * Every error that crosses a service boundary carries one of these codes. The gateway maps each
 * code to an HTTP status and an envelope type through one exhaustive table (ERROR_CODE_TABLE).
 */
export const ERROR_CODES = [
  'invalid_request',
  'context_length_exceeded',
  'invalid_model',
  'unauthorized',
  'invalid_api_key',
  'forbidden',
  'not_found',
  'insufficient_balance',
  'spending_limit_exceeded',
  'conflict',
  'payload_too_large',
  'storage_quota_exceeded',
  'unsupported_media_type',
  'rate_limited',
  'upstream_rate_limited',
  'upstream_error',
  'upstream_overloaded',
  'no_provider_available',
  'service_unavailable',
  'upstream_timeout',
  'internal_error',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export type ErrorEnvelopeType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'not_found_error'
  | 'insufficient_quota'
  | 'conflict_error'
  | 'rate_limit_error'
  | 'api_error';

export const ERROR_CODE_TABLE: Record<ErrorCode, { status: number; type: ErrorEnvelopeType }> = {
  invalid_request: { status: 400, type: 'invalid_request_error' },
  // The provider's own refusal of a prompt too long for its model, under the code OpenAI gives it.
  context_length_exceeded: { status: 400, type: 'invalid_request_error' },
  invalid_model: { status: 400, type: 'invalid_request_error' },
  unauthorized: { status: 401, type: 'authentication_error' },
  invalid_api_key: { status: 401, type: 'authentication_error' },
  forbidden: { status: 403, type: 'permission_error' },
  not_found: { status: 404, type: 'not_found_error' },
  insufficient_balance: { status: 402, type: 'insufficient_quota' },
  spending_limit_exceeded: { status: 402, type: 'insufficient_quota' },
  conflict: { status: 409, type: 'conflict_error' },
  payload_too_large: { status: 413, type: 'invalid_request_error' },
  storage_quota_exceeded: { status: 413, type: 'insufficient_quota' },
  // 400, not HTTP's 415: DESIGN.md §5.1 answers every invalid input 400 (decision 125).
  unsupported_media_type: { status: 400, type: 'invalid_request_error' },
  rate_limited: { status: 429, type: 'rate_limit_error' },
  // The provider's own rate limit or overload, so that a client backs off and knows whose limit it is.
  upstream_rate_limited: { status: 429, type: 'rate_limit_error' },
  upstream_error: { status: 502, type: 'api_error' },
  upstream_overloaded: { status: 503, type: 'api_error' },
  no_provider_available: { status: 503, type: 'api_error' },
  service_unavailable: { status: 503, type: 'api_error' },
  upstream_timeout: { status: 504, type: 'api_error' },
  internal_error: { status: 500, type: 'api_error' },
};

/** The one shape an error has on the transport. */
export interface RpcErrorPayload {
  status: number;
  code: ErrorCode;
  message: string;
  param?: string | null;
  /** When the client may try again, where the failure knows (a provider's `Retry-After`). */
  retryAfterSeconds?: number | null;
}

export function isRpcErrorPayload(value: unknown): value is RpcErrorPayload {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.code === 'string' &&
    (ERROR_CODES as readonly string[]).includes(v.code) &&
    typeof v.message === 'string'
  );
}

/** The HTTP error body everywhere (DESIGN.md §5.1). */
export interface ErrorEnvelope {
  error: { message: string; type: ErrorEnvelopeType; code: ErrorCode | (string & {}); param: string | null };
}

/** A coded failure raised by any service; it survives the transport as an RpcErrorPayload. */
export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly param: string | null = null,
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(message);
    this.name = 'DomainError';
  }

  get status(): number {
    return ERROR_CODE_TABLE[this.code].status;
  }

  toPayload(): RpcErrorPayload {
    return {
      status: this.status,
      code: this.code,
      message: this.message,
      param: this.param,
      ...(this.retryAfterSeconds !== null ? { retryAfterSeconds: this.retryAfterSeconds } : {}),
    };
  }

  static fromPayload(payload: RpcErrorPayload): DomainError {
    const retryAfter = payload.retryAfterSeconds;
    return new DomainError(
      payload.code,
      payload.message,
      payload.param ?? null,
      typeof retryAfter === 'number' && Number.isFinite(retryAfter) ? retryAfter : null,
    );
  }
}
