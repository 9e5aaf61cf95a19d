import { Logger } from '@nestjs/common';
import { type CustomTransportStrategy, Server } from '@nestjs/microservices';
import { defer, isObservable, mergeMap, type Observable, Subscription } from 'rxjs';
import { toRpcErrorPayload } from '../errors/rpc-error.filter';
import { tracer } from '../observability/tracing';
import { HandedFrames } from './handed-frames';
import { type InProcessBus, NO_HANDLER_MESSAGE, type ReplyPacket } from './in-process-bus';
import { InProcessContext } from './in-process-context';
import { traceHandling } from './traced-handling';

/**
 * A Nest transport strategy that registers the app's @MessagePattern and @EventPattern handlers
 * on the in-process bus. Handlers run through Nest's pipes, interceptors and filters as on NATS;
 * their replies are passed on as they come (see `replyInTurn`).
 */
export class InProcessServer extends Server implements CustomTransportStrategy {
  private readonly unregister: Array<() => void> = [];

  constructor(private readonly bus: InProcessBus) {
    super();
  }

  listen(callback: (...optionalParams: unknown[]) => void): void {
    for (const [pattern, handler] of this.messageHandlers) {
      const unregister = handler.isEventHandler
        ? this.bus.registerEventHandler(pattern, (data) => this.dispatchEvent(pattern, data))
        : this.bus.registerRequestHandler(pattern, (data, reply) => {
            const context = new InProcessContext([pattern]);
            const messageHandler = this.getHandlerByPattern(pattern);
            if (!messageHandler) {
              reply({ err: NO_HANDLER_MESSAGE, isDisposed: true });
              return () => undefined;
            }
            if (tracer() !== null) {
              const traced = traceHandling(pattern, () =>
                defer(() => messageHandler(data, context) as Promise<unknown>).pipe(
                  mergeMap((result) => this.transformToObservable(result)),
                ),
              );
              const subscription = replyInTurn(traced, reply);
              return () => subscription.unsubscribe();
            }
            let subscription: { unsubscribe(): void } | undefined;
            let cancelled = false;
            void Promise.resolve()
              .then(() => messageHandler(data, context))
              .then((result) => {
                if (cancelled) return;
                subscription = replyInTurn(this.transformToObservable(result), reply);
              })
              .catch((err: unknown) => reply({ err, isDisposed: true }));
            return () => {
              cancelled = true;
              subscription?.unsubscribe();
            };
          });
      this.unregister.push(unregister);
    }
    callback();
  }

  /** Our subjects are never JSON: Nest's own lookup tries JSON.parse on each and pays for a SyntaxError per message. */
  protected override getRouteFromPattern(pattern: string): string {
    return pattern;
  }

  close(): void {
    this.unregister.splice(0).forEach((unregister) => unregister());
  }

  on(): void {
    throw new Error('InProcessServer has no events to listen to');
  }

  unwrap<T>(): T {
    return this.bus as T;
  }

  private async dispatchEvent(pattern: string, data: unknown): Promise<void> {
    const handler = this.getHandlerByPattern(pattern);
    if (!handler) return;
    const result: unknown = await handler(data, new InProcessContext([pattern]));
    if (isObservable(result))
      await new Promise<void>((resolve, reject) => result.subscribe({ error: reject, complete: resolve }));
  }
}

export { InProcessContext } from './in-process-context';

const handedFramesLogger = new Logger('RpcErrorFilter');

/**
 * Replies each value of a handler's answer in the turn it is produced, the error or the end as the
 * last packet. Nest's Server.send queues every packet for the next tick behind an async publish,
 * which a NATS socket needs and a function call does not: a streamed answer paid a tick and a
 * promise per token for it (decision 179). Frames handed past Nest's pipeline (HandedFrames) are
 * subscribed to here, their failure answered as Nest's error filter would (decision 195).
 */
function replyInTurn(answer: Observable<unknown>, reply: (packet: ReplyPacket) => void): Subscription {
  const subscriptions = new Subscription();
  let handed = false;
  subscriptions.add(
    answer.subscribe({
      next: (response) => {
        if (!(response instanceof HandedFrames)) return reply({ response });
        handed = true;
        subscriptions.add(
          response.frames.subscribe({
            next: (frame) => reply({ response: frame }),
            error: (err: unknown) =>
              reply({ err: toRpcErrorPayload(err, handedFramesLogger), isDisposed: true }),
            complete: () => reply({ isDisposed: true }),
          }),
        );
      },
      error: (err: unknown) => reply({ err, isDisposed: true }),
      complete: () => {
        if (!handed) reply({ isDisposed: true });
      },
    }),
  );
  return subscriptions;
}
