import { errors } from 'undici';
import { DomainError } from '@gw/contracts';

export type UpstreamFailureKind = 'connect' | 'timeout' | 'status' | 'protocol' | 'aborted';

/** A provider call that failed; `retryable` failures before any output move on to the next provider. */
export class UpstreamFailure extends Error {
  constructor(
    readonly kind: UpstreamFailureKind,
    message: string,
    readonly httpStatus: number | null = null,
  ) {
    super(message);
    this.name = 'UpstreamFailure';
  }

  get retryable(): boolean {
    if (this.kind === 'connect' || this.kind === 'timeout') return true;
    if (this.kind === 'status')
      return this.httpStatus === 429 || this.httpStatus === 408 || (this.httpStatus ?? 0) >= 500;
    return false;
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

/** What the client is told when no provider produced a completion. */
export function upstreamDomainError(failure: UpstreamFailure | null, outputStarted = false): DomainError {
  if (failure?.kind === 'timeout')
    return new DomainError('upstream_timeout', 'The upstream provider did not answer in time');
  if (outputStarted) return new DomainError('upstream_error', 'The upstream provider broke off the answer');
  const status = failure?.httpStatus ? ` (HTTP ${failure.httpStatus})` : '';
  return new DomainError('upstream_error', `The upstream provider failed${status}`);
}
