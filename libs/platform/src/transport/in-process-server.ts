import { BaseRpcContext, type CustomTransportStrategy, Server } from '@nestjs/microservices';
import { defer, isObservable, mergeMap, type Observable, type Subscription } from 'rxjs';
import { tracer } from '../observability/tracing';
import { type InProcessBus, NO_HANDLER_MESSAGE, type ReplyPacket } from './in-process-bus';
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

/** The context of a message on the in-process bus, where caller and handler live and die together. */
export class InProcessContext extends BaseRpcContext<[string]> {}

/**
 * Replies each value of a handler's answer in the turn it is produced, the error or the end as the
 * last packet. Nest's Server.send queues every packet for the next tick behind an async publish,
 * which a NATS socket needs and a function call does not: a streamed answer paid a tick and a
 * promise per token for it (decision 179).
 */
function replyInTurn(answer: Observable<unknown>, reply: (packet: ReplyPacket) => void): Subscription {
  return answer.subscribe({
    next: (response) => reply({ response }),
    error: (err: unknown) => reply({ err, isDisposed: true }),
    complete: () => reply({ isDisposed: true }),
  });
}
