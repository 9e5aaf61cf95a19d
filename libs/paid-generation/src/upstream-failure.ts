import { errors } from 'undici';
import { DomainError } from '@gw/contracts';

export type UpstreamFailureKind =
  'connect' | 'timeout' | 'status' | 'protocol' | 'provider_error' | 'aborted';

/**
 * How a provider classed its failure: the client's status when no other provider answers follows
 * it. `refused` is a refusal of the request itself (the client's to fix), `unauthorized` a refusal
 * of the gateway's own provider key (the operator's).
 */
export type ProviderErrorClass = 'overloaded' | 'rate_limited' | 'refused' | 'unauthorized' | 'failed';

/** What a provider's error object says, as far as the client may hear it. */
export interface ProviderError {
  message: string | null;
  /** The provider's `code` (OpenAI) or error `type` (Anthropic). */
  code: string | null;
  param: string | null;
}

export interface UpstreamFailureDetails {
  /** The provider's own class, where its error object names one (an error event inside a stream). */
  errorClass?: ProviderErrorClass;
  /** The provider's `Retry-After`, in whole seconds. */
  retryAfterSeconds?: number | null;
  /** The provider's error object, when it answered one. */
  providerError?: ProviderError | null;
}

/** A refusal that another provider may not repeat: a model with a longer context may take the prompt. */
const CONTEXT_LENGTH = /context.length|prompt is too long|too many (input )?tokens|maximum context/i;

/** When a client may retry a provider that is rate limiting or overloaded and did not say when. */
const DEFAULT_RETRY_AFTER_SECONDS = 5;

/**
 * A provider call that failed. Before any output every failure but a cancellation or a refusal of
 * the request itself (a 4xx other than 408 and 429) moves on to the next provider: an error event
 * or a mangled line says nothing about what the next provider will do.
 */
export class UpstreamFailure extends Error {
  readonly retryAfterSeconds: number | null;
  readonly providerError: ProviderError | null;
  private readonly declaredClass: ProviderErrorClass | undefined;

  constructor(
    readonly kind: UpstreamFailureKind,
    message: string,
    readonly httpStatus: number | null = null,
    details: UpstreamFailureDetails = {},
  ) {
    super(message);
    this.name = 'UpstreamFailure';
    this.declaredClass = details.errorClass;
    this.retryAfterSeconds = details.retryAfterSeconds ?? null;
    this.providerError = details.providerError ?? null;
  }

  /**
   * Whether the next provider is worth trying. A refusal of the request is not, unless it is about
   * the prompt's length; the gateway's key refused by one provider says nothing of the next.
   */
  get retryable(): boolean {
    if (this.kind === 'aborted') return false;
    const errorClass = this.errorClass;
    if (errorClass === 'refused') return this.contextLengthExceeded;
    if (this.kind !== 'status') return true;
    return errorClass !== 'failed' || this.httpStatus === 408 || (this.httpStatus ?? 0) >= 500;
  }

  /** The provider's class of failure: named in its error object, or read from its HTTP status (529 is Anthropic's overload). */
  get errorClass(): ProviderErrorClass {
    if (this.declaredClass) return this.declaredClass;
    const status = this.httpStatus;
    if (status === 429) return 'rate_limited';
    if (status === 503 || status === 529) return 'overloaded';
    if (status === 401 || status === 403) return 'unauthorized';
    if (status === 400 || status === 413 || status === 422) return 'refused';
    return 'failed';
  }

  /** The provider refused the prompt as longer than its model takes. */
  get contextLengthExceeded(): boolean {
    const error = this.providerError;
    return (
      error !== null && (error.code === 'context_length_exceeded' || CONTEXT_LENGTH.test(error.message ?? ''))
    );
  }
}

/** Whatever a provider call threw, as the failure the fallback decides on. */
export function toUpstreamFailure(err: unknown): UpstreamFailure {
  if (err instanceof UpstreamFailure) return err;
  if (
    err instanceof errors.HeadersTimeoutError ||
    err instanceof errors.BodyTimeoutError ||
    err instanceof errors.ConnectTimeoutError
  ) {
    return new UpstreamFailure('timeout', 'Upstream did not answer in time');
  }
  const name = (err as Error)?.name;
  if (name === 'AbortError' || err instanceof errors.RequestAbortedError)
    return new UpstreamFailure('aborted', 'Request cancelled');
  const code = (err as { code?: string })?.code ?? (err as { cause?: { code?: string } })?.cause?.code;
  const message = (err as Error)?.message ?? String(err);
  if (code === 'UND_ERR_SOCKET' || code === 'ECONNRESET' || err instanceof errors.SocketError) {
    return new UpstreamFailure('protocol', `Upstream connection broke: ${message}`);
  }
  return new UpstreamFailure('connect', `Upstream not reachable: ${message}`);
}

/**
 * What the client is told when no provider produced a completion: a provider's refusal of the
 * request is the client's 400 (413 for a body too large) with the provider's reason; its rate limit
 * is the client's 429 and its overload a 503, each with the provider's `Retry-After`; any other
 * failure a 502, without the provider's text (a refused provider key among them: the operator's
 * problem, which the client cannot fix).
 */
export function upstreamDomainError(
  failure: UpstreamFailure | null,
  outputStarted = false,
  provider: string | null = null,
): DomainError {
  if (failure?.kind === 'timeout')
    return new DomainError('upstream_timeout', 'The upstream provider did not answer in time');
  if (outputStarted) return new DomainError('upstream_error', 'The upstream provider broke off the answer');
  if (failure?.errorClass === 'refused') return refusal(failure, provider);
  const retryAfter = failure?.retryAfterSeconds ?? DEFAULT_RETRY_AFTER_SECONDS;
  if (failure?.errorClass === 'rate_limited')
    return new DomainError(
      'upstream_rate_limited',
      'The upstream provider is rate limiting requests; retry later',
      null,
      retryAfter,
    );
  if (failure?.errorClass === 'overloaded')
    return new DomainError(
      'upstream_overloaded',
      'The upstream provider is overloaded; retry later',
      null,
      retryAfter,
    );
  const status = failure?.httpStatus ? ` (HTTP ${failure.httpStatus})` : '';
  return new DomainError('upstream_error', `The upstream provider failed${status}`);
}

/** Longest part of a provider's reason passed on to the client. */
const MAX_REASON_CHARS = 1_000;

/** The provider's refusal of the request, in its words, named as the provider's. */
function refusal(failure: UpstreamFailure, provider: string | null): DomainError {
  const reason = failure.providerError?.message?.slice(0, MAX_REASON_CHARS) || `HTTP ${failure.httpStatus}`;
  const message = `${provider ?? 'The upstream provider'} refused the request: ${reason}`;
  const param = failure.providerError?.param ?? null;
  if (failure.httpStatus === 413) return new DomainError('payload_too_large', message, param);
  const code = failure.contextLengthExceeded ? 'context_length_exceeded' : 'invalid_request';
  return new DomainError(code, message, param);
}

/**
 * The error object of a provider's answer, on either wire: OpenAI's `{error: {message, type, code,
 * param}}` or Anthropic's `{type: 'error', error: {type, message}}`; null when the body holds none.
 */
export function providerErrorOf(body: unknown): ProviderError | null {
  const error = (body as { error?: unknown } | null)?.error;
  if (typeof error !== 'object' || error === null) return null;
  const { message, code, type, param } = error as Record<string, unknown>;
  const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : null);
  return { message: text(message), code: text(code) ?? text(type), param: text(param) };
}
