import {
  type CallHandler,
  type ExecutionContext,
  type NestInterceptor,
  UseInterceptors,
} from '@nestjs/common';
import { Observable } from 'rxjs';
import { InProcessContext } from './in-process-server';

/**
 * How often a long call tells its caller that it is still at work. A caller that hears nothing for
 * a few of these knows the service or the bus between them is gone, instead of waiting minutes.
 */
export const HEARTBEAT_INTERVAL_MS = 2_000;

/** The frame a service sends between its real replies; RpcClient drops it after resetting its idle timer. */
export const HEARTBEAT_FRAME = { '@heartbeat': true } as const;

export function isHeartbeat(frame: unknown): boolean {
  return (
    typeof frame === 'object' && frame !== null && (frame as Record<string, unknown>)['@heartbeat'] === true
  );
}

/**
 * Interleaves heartbeat frames with a handler's replies, from its call until its last reply or
 * error; on the in-process bus, where the caller has no silence to fear, the replies alone.
 */
export class HeartbeatInterceptor implements NestInterceptor {
  constructor(private readonly intervalMs: number) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.switchToRpc().getContext() instanceof InProcessContext) return next.handle();
    return new Observable((subscriber) => {
      const timer = setInterval(() => subscriber.next(HEARTBEAT_FRAME), this.intervalMs);
      const stop = () => clearInterval(timer);
      const subscription = next.handle().subscribe({
        next: (value: unknown) => subscriber.next(value),
        error: (err: unknown) => {
          stop();
          subscriber.error(err);
        },
        complete: () => {
          stop();
          subscriber.complete();
        },
      });
      return () => {
        stop();
        subscription.unsubscribe();
      };
    });
  }
}

/** Marks a handler (or a controller's handlers) as long calls whose callers listen with an idle timeout. */
export function SendsHeartbeats(intervalMs = HEARTBEAT_INTERVAL_MS): MethodDecorator & ClassDecorator {
  return UseInterceptors(new HeartbeatInterceptor(intervalMs));
}
