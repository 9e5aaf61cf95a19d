import { type MessageHandler, ServerNats } from '@nestjs/microservices';
import { DomainError } from '@gw/contracts';
import type { Msg, NatsConnection } from '@nats-io/transport-node';
import { catchError, defer, from, mergeMap, type Observable, throwError } from 'rxjs';
import { type BlobStore } from '../blobs/blob-store';
import { acceptRequestId, NATS_REQUEST_ID_HEADER, requestIds } from '../observability/request-id';
import { ClaimCheckSender, isClaimCheck, mapInOrder, redeemClaimCheck, withHeartbeats } from './claim-checks';

type NatsServerOptions = ConstructorParameters<typeof ServerNats>[0];

/**
 * Nest's NATS server with claim checks (claim-checks.ts) both ways: a request's is redeemed before
 * the handler sees the message, so handlers, pipes and validation read the payload as if it had
 * crossed the bus whole, and a reply or stream piece too large for the bus is staged and crosses as
 * a claim check that the caller's RpcClient redeems. A claim check that cannot be redeemed or
 * staged is answered as an error, like any handler's.
 */
export class ClaimCheckServerNats extends ServerNats {
  private readonly replies: ClaimCheckSender;

  constructor(
    options: NatsServerOptions,
    private readonly blobs: BlobStore | null,
  ) {
    super(options);
    this.replies = new ClaimCheckSender(
      blobs,
      async () => this.unwrap<NatsConnection>().info?.max_payload ?? 1024 * 1024,
    );
  }

  /** A request that names the request it is made for is handled, and logged, as part of it. */
  override handleMessage(channel: string, natsMsg: Msg): Promise<unknown> {
    const requestId = natsMsg.headers?.get(NATS_REQUEST_ID_HEADER);
    if (!requestId) return super.handleMessage(channel, natsMsg);
    return requestIds.run(acceptRequestId(requestId), () => super.handleMessage(channel, natsMsg));
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
      defer(() => (isClaimCheck(data) ? from(redeemClaimCheck(this.blobs, data)) : from([data]))).pipe(
        mergeMap((payload) => from(handler(payload, context)).pipe(mergeMap(asObservable))),
        // In order: a stream's pieces must not overtake one another while a large one is staged.
        mapInOrder((reply) => withHeartbeats(this.replies.reply(reply))),
        // A claim check that failed leaves as the coded payload RpcClient reads; a handler's errors already are.
        catchError((err: unknown) => throwError(() => (err instanceof DomainError ? err.toPayload() : err))),
      )) as MessageHandler;
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
