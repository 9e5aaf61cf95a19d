import { BaseRpcContext, type CustomTransportStrategy, Server } from '@nestjs/microservices';
import { isObservable } from 'rxjs';
import { type InProcessBus, NO_HANDLER_MESSAGE } from './in-process-bus';

/**
 * A Nest transport strategy that registers the app's @MessagePattern and @EventPattern handlers
 * on the in-process bus. It reuses Server.send, so replies, errors and streams follow exactly the
 * code path of the NATS server.
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
            const context = new BaseRpcContext([pattern]);
            const messageHandler = this.getHandlerByPattern(pattern);
            if (!messageHandler) {
              reply({ err: NO_HANDLER_MESSAGE, isDisposed: true });
              return () => undefined;
            }
            let subscription: { unsubscribe(): void } | undefined;
            let cancelled = false;
            void Promise.resolve()
              .then(() => messageHandler(data, context))
              .then((result) => {
                if (cancelled) return;
                subscription = this.send(this.transformToObservable(result), reply);
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
    const result: unknown = await handler(data, new BaseRpcContext([pattern]));
    if (isObservable(result))
      await new Promise<void>((resolve, reject) => result.subscribe({ error: reject, complete: resolve }));
  }
}
