import { Logger } from '@nestjs/common';
import type { NewAttempt } from './paid-generation-tables';
import { toUpstreamFailure, type UpstreamFailure } from './upstream-failure';

const logger = new Logger('ProviderFallback');

/** Whatever names a provider to try: a catalogue route, or anything else with the provider's name. */
export interface FallbackRoute {
  name: string;
}

/** `started` is when the answering attempt began, for callers that close it themselves. */
export interface Answered<R, T> {
  outcome: 'answered';
  route: R;
  value: T;
  started: number;
}

/** The caller's signal aborted during an attempt: no further provider is tried. */
export interface Cancelled<R> {
  outcome: 'cancelled';
  route: R;
}

/** Every provider failed, or one failed in a way another provider would not fix. */
export interface Exhausted {
  outcome: 'exhausted';
  failure: UpstreamFailure | null;
}

export type FallbackEnd<R, T> = Answered<R, T> | Cancelled<R> | Exhausted;

export interface FallbackOptions {
  /** The client's cancellation: an attempt that fails once it is aborted is recorded cancelled and ends the run. */
  signal?: { readonly aborted: boolean };
  /**
   * False where the answer goes on after `call` resolves (a stream relayed after its first
   * output): the attempt is then still open, and the caller records it when the answer ends.
   */
  closesAttempt?: boolean;
}

/** What a fallback runs over: the providers in order, and the attempt list it appends to (a GenerationHold's `attempts`). */
export interface FallbackPlan<R extends FallbackRoute> {
  routes: readonly R[];
  attempts: NewAttempt[];
}

/** Appends one attempt to a generation's list, numbered after those already there. */
export function recordAttempt(
  attempts: NewAttempt[],
  route: FallbackRoute,
  startedAt: number,
  failure: UpstreamFailure | null,
  cancelled = false,
): void {
  attempts.push({
    attempt: attempts.length + 1,
    provider: route.name,
    status: cancelled ? 'cancelled' : failure ? 'failed' : 'completed',
    errorCode: failure ? failure.kind : null,
    errorMessage: failure ? failure.message.slice(0, 1000) : null,
    httpStatus: failure?.httpStatus ?? null,
    startedAt: new Date(startedAt),
    durationMs: Date.now() - startedAt,
  });
}

/**
 * The provider fallback every paid generation shares: call the providers in order, record each
 * attempt, move on after a retryable failure and stop at the first answer, at a failure another
 * provider would not fix, or when the client cancels.
 */
export function tryProvidersInOrder<R extends FallbackRoute, T>(
  plan: FallbackPlan<R>,
  call: (route: R) => Promise<T>,
  options?: Omit<FallbackOptions, 'signal'>,
): Promise<Answered<R, T> | Exhausted>;
export function tryProvidersInOrder<R extends FallbackRoute, T>(
  plan: FallbackPlan<R>,
  call: (route: R) => Promise<T>,
  options: FallbackOptions,
): Promise<FallbackEnd<R, T>>;
export async function tryProvidersInOrder<R extends FallbackRoute, T>(
  plan: FallbackPlan<R>,
  call: (route: R) => Promise<T>,
  options: FallbackOptions = {},
): Promise<FallbackEnd<R, T>> {
  const { routes, attempts } = plan;
  let failure: UpstreamFailure | null = null;
  for (const route of routes) {
    const started = Date.now();
    try {
      const value = await call(route);
      if (options.closesAttempt !== false) recordAttempt(attempts, route, started, null);
      return { outcome: 'answered', route, value, started };
    } catch (err) {
      failure = toUpstreamFailure(err);
      if (failure.errorClass === 'unauthorized')
        logger.error(
          `${route.name} refused the gateway's provider key (HTTP ${failure.httpStatus ?? '-'}): check the key its catalogue routing names`,
        );
      const cancelled = options.signal?.aborted ?? false;
      recordAttempt(attempts, route, started, failure, cancelled);
      if (cancelled) return { outcome: 'cancelled', route };
      if (!failure.retryable) break;
    }
  }
  return { outcome: 'exhausted', failure };
}
