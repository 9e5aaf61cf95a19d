import { errors } from 'undici';
import { DomainError } from '@gw/contracts';

export type UpstreamFailureKind =
  'connect' | 'timeout' | 'status' | 'protocol' | 'provider_error' | 'aborted';

/** How a provider classed its failure: the client's status when no other provider answers follows it. */
export type ProviderErrorClass = 'overloaded' | 'rate_limited' | 'failed';

export interface UpstreamFailureDetails {
  /** The provider's own class, where its error object names one (an error event inside a stream). */
  errorClass?: ProviderErrorClass;
  /** The provider's `Retry-After`, in whole seconds. */
  retryAfterSeconds?: number | null;
}

/** When a client may retry a provider that is rate limiting or overloaded and did not say when. */
const DEFAULT_RETRY_AFTER_SECONDS = 5;

/**
 * A provider call that failed. Before any output every failure but a cancellation or a refusal of
 * the request itself (a 4xx other than 408 and 429) moves on to the next provider: an error event
 * or a mangled line says nothing about what the next provider will do.
 */
export class UpstreamFailure extends Error {
  readonly retryAfterSeconds: number | null;
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
  }

  get retryable(): boolean {
    if (this.kind === 'aborted') return false;
    if (this.kind === 'status')
      return this.httpStatus === 429 || this.httpStatus === 408 || (this.httpStatus ?? 0) >= 500;
    return true;
  }

  /** The provider's class of failure: named in its error object, or read from its HTTP status (529 is Anthropic's overload). */
  get errorClass(): ProviderErrorClass {
    if (this.declaredClass) return this.declaredClass;
    if (this.httpStatus === 429) return 'rate_limited';
    if (this.httpStatus === 503 || this.httpStatus === 529) return 'overloaded';
    return 'failed';
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
 * What the client is told when no provider produced a completion: a provider's rate limit is the
 * client's 429 and its overload a 503, each with the provider's `Retry-After`; any other failure a 502.
 */
export function upstreamDomainError(failure: UpstreamFailure | null, outputStarted = false): DomainError {
  if (failure?.kind === 'timeout')
    return new DomainError('upstream_timeout', 'The upstream provider did not answer in time');
  if (outputStarted) return new DomainError('upstream_error', 'The upstream provider broke off the answer');
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
