import { type MessageHandler, ServerNats } from '@nestjs/microservices';
import { DomainError } from '@gw/contracts';
import type { Msg, NatsConnection, Subscription } from '@nats-io/transport-node';
import { catchError, defer, finalize, from, mergeMap, type Observable, throwError } from 'rxjs';
import { type BlobStore } from '../blobs/blob-store';
import { WorkInFlight } from '../bootstrap/work-in-flight';
import { acceptRequestId, NATS_REQUEST_ID_HEADER, requestIds } from '../observability/request-id';
import { contextFromHeaders, traceContext, tracer } from '../observability/tracing';
import { traceHandling } from './traced-handling';
import { ClaimCheckSender, isClaimCheck, mapInOrder, redeemClaimCheck, withHeartbeats } from './claim-checks';

type NatsServerOptions = ConstructorParameters<typeof ServerNats>[0];

/** How long a closing server waits for its handlers when its app names no bound. */
export const DEFAULT_DRAIN_TIMEOUT_MS = 30_000;

/**
 * Nest's NATS server with claim checks (claim-checks.ts) both ways: a request's is redeemed before
 * the handler sees the message, so handlers, pipes and validation read the payload as if it had
 * crossed the bus whole, and a reply or stream piece too large for the bus is staged and crosses as
 * a claim check that the caller's RpcClient redeems. A claim check that cannot be redeemed or
 * staged is answered as an error, like any handler's.
 *
 * It closes by draining: no new request is taken, the handlers and streams in flight finish (for
 * at most `drainTimeoutMs`) while the connection still carries their answers, then the connection
 * drains, so what was published leaves before it closes.
 */
export class ClaimCheckServerNats extends ServerNats {
  private readonly replies: ClaimCheckSender;
  private readonly inFlight = new WorkInFlight();

  constructor(
    options: NatsServerOptions,
    private readonly blobs: BlobStore | null,
    private readonly drainTimeoutMs = DEFAULT_DRAIN_TIMEOUT_MS,
  ) {
    super(options);
    this.replies = new ClaimCheckSender(
      blobs,
      async () => this.unwrap<NatsConnection>().info?.max_payload ?? 1024 * 1024,
    );
  }

  /**
   * A request that names the request it is made for is handled, and logged, as part of it; one that
   * carries a trace context is handled in it (the handler's span is its child, see traceHandling).
   */
  override handleMessage(channel: string, natsMsg: Msg): Promise<unknown> {
    const finished = this.inFlight.begin();
    const requestId = natsMsg.headers?.get(NATS_REQUEST_ID_HEADER);
    const handle = () => super.handleMessage(channel, natsMsg);
    const traced =
      tracer() === null
        ? handle
        : () =>
            traceContext.with(
              contextFromHeaders((name) => natsMsg.headers?.get(name) || undefined),
              handle,
            );
    const handled = requestId ? requestIds.run(acceptRequestId(requestId), traced) : traced();
    return handled.finally(finished);
  }

  override async close(): Promise<void> {
    const nc = this.connection();
    if (nc && !nc.isClosed() && !nc.isDraining()) {
      await Promise.all(this.handlerSubscriptions().map((sub) => sub.drain().catch(() => undefined)));
      if (!(await this.inFlight.idle(this.drainTimeoutMs))) {
        this.logger.warn(
          `${this.inFlight.size} requests still running after ${this.drainTimeoutMs} ms are cut`,
        );
      }
      await nc.drain().catch(() => undefined);
    }
    await super.close();
  }

  private connection(): NatsConnection | null {
    try {
      return this.unwrap<NatsConnection>();
    } catch {
      return null;
    }
  }

  /**
   * The subscriptions of the handlers, which Nest keeps private: they stop first, while the
   * liveness subscriptions of a subclass keep answering until the work in flight is done.
   */
  private handlerSubscriptions(): Subscription[] {
    return (this as unknown as { subscriptions: Subscription[] }).subscriptions;
  }

  /** Our subjects are never JSON: Nest's own lookup tries JSON.parse on each and pays for a SyntaxError per message. */
  protected override getRouteFromPattern(pattern: string): string {
    return pattern;
  }

  override getHandlerByPattern(pattern: string): MessageHandler | null {
    const handler = super.getHandlerByPattern(pattern);
    // Events go to every replica, so none may delete what another has still to read; they stay small.
    if (!handler || handler.isEventHandler) return handler;
    const claimChecked = (async (data: unknown, context: unknown) =>
      defer(() => {
        // Counted until the last piece is answered, so a closing server waits for the whole stream.
        const finished = this.inFlight.begin();
        return defer(() =>
          isClaimCheck(data) ? from(redeemClaimCheck(this.blobs, data)) : from([data]),
        ).pipe(
          mergeMap((payload) =>
            traceHandling(pattern, () => from(handler(payload, context)).pipe(mergeMap(asObservable))),
          ),
          // In order: a stream's pieces must not overtake one another while a large one is staged.
          mapInOrder((reply) => withHeartbeats(this.replies.reply(reply))),
          // A claim check that failed leaves as the coded payload RpcClient reads; a handler's errors already are.
          catchError((err: unknown) =>
            throwError(() => (err instanceof DomainError ? err.toPayload() : err)),
          ),
          finalize(finished),
        );
      })) as MessageHandler;
    return Object.assign(claimChecked, {
      isEventHandler: false,
      extras: handler.extras,
      next: handler.next,
    });
  }
}

function asObservable(result: unknown): Observable<unknown> {
  return isObservableLike(result) ? result : from([result]);
}

function isObservableLike(value: unknown): value is Observable<unknown> {
  return typeof (value as Observable<unknown> | null)?.subscribe === 'function';
}
