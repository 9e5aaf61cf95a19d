import { type MessageHandler, ServerNats } from '@nestjs/microservices';
import { DomainError } from '@gw/contracts';
import { catchError, defer, from, mergeMap, type Observable, throwError } from 'rxjs';
import { type BlobStore } from '../blobs/blob-store';
import { isClaimCheck, redeemClaimCheck } from './claim-checks';

type NatsServerOptions = ConstructorParameters<typeof ServerNats>[0];

/**
 * Nest's NATS server that redeems a request's claim check (claim-checks.ts) before the handler sees
 * the message, so handlers, pipes and validation read the payload as if it had crossed the bus
 * whole. A claim check that cannot be redeemed is answered as an error, like any handler's.
 */
export class ClaimCheckServerNats extends ServerNats {
  constructor(
    options: NatsServerOptions,
    private readonly blobs: BlobStore | null,
  ) {
    super(options);
  }

  /** Our subjects are never JSON: Nest's own lookup tries JSON.parse on each and pays for a SyntaxError per message. */
  protected override getRouteFromPattern(pattern: string): string {
    return pattern;
  }

  override getHandlerByPattern(pattern: string): MessageHandler | null {
    const handler = super.getHandlerByPattern(pattern);
    // Events go to every replica, so none may delete what another has still to read; they stay small.
    if (!handler || handler.isEventHandler) return handler;
    const redeeming = ((data: unknown, context: unknown) =>
      isClaimCheck(data)
        ? defer(() => from(redeemClaimCheck(this.blobs, data))).pipe(
            mergeMap((payload) => from(handler(payload, context)).pipe(mergeMap(asObservable))),
            // A failure to redeem leaves as the coded payload RpcClient reads; a handler's errors already are.
            catchError((err: unknown) =>
              throwError(() => (err instanceof DomainError ? err.toPayload() : err)),
            ),
          )
        : handler(data, context)) as MessageHandler;
    return Object.assign(redeeming, { isEventHandler: false, extras: handler.extras, next: handler.next });
  }
}

function asObservable(result: unknown): Observable<unknown> {
  return isObservableLike(result) ? result : from([result]);
}

function isObservableLike(value: unknown): value is Observable<unknown> {
  return typeof (value as Observable<unknown> | null)?.subscribe === 'function';
}
