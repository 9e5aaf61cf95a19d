import {
  type CallHandler,
  type ExecutionContext,
  Injectable,
  Logger,
  type NestInterceptor,
  UseInterceptors,
} from '@nestjs/common';
import { CallerPresence } from '@gw/platform';
import { GenerationRecorder } from '@gw/paid-generation';
import { Observable } from 'rxjs';
import { setTimeout as sleep } from 'node:timers/promises';
import { GenerationCancellations } from './generation-cancellations';

/** How often a running generation asks whether the gateway that asked for it is still there. */
export const GONE_CALLER_WATCH_INTERVAL_MS = 2_000;
/**
 * A caller found gone is probed once more after this long before its generation is given up: longer
 * than a NATS client's wait before it reconnects (2 s), so a gateway that is only reconnecting after
 * a bus restart, its presence not yet subscribed again, is not taken for gone.
 */
export const GONE_CALLER_CONFIRM_MS = 3_000;

const GONE_CALLER_REASON = 'the gateway that asked for it stopped before the answer reached it';

interface WatchedGeneration {
  generationId: string;
  organizationId: string;
}

/** The generation a message is about: every generation message names its caller's organization and its id. */
function generationOf(data: unknown): WatchedGeneration | null {
  const message = data as { generationId?: unknown; principal?: { organizationId?: unknown } } | null;
  const generationId = message?.generationId;
  const organizationId = message?.principal?.organizationId;
  return typeof generationId === 'string' && typeof organizationId === 'string'
    ? { generationId, organizationId }
    : null;
}

/**
 * Records a generation undelivered, at no cost, when the gateway that asked for it is gone (it
 * crashed or was killed): the gateway's own report of an undelivered answer died with it
 * (docs/decisions.md, gone callers). While the generation runs its caller is probed every
 * GONE_CALLER_WATCH_INTERVAL_MS, and a caller gone for good cancels it; once it has ended the caller
 * is probed once more, since a gateway that dies while the answer crosses never receives it. The
 * answer itself is never held back for a probe.
 */
@Injectable()
export class GoneCallerWatch implements NestInterceptor {
  private readonly logger = new Logger('GoneCallerWatch');

  constructor(
    private readonly presence: CallerPresence,
    private readonly cancellations: GenerationCancellations,
    private readonly recorder: GenerationRecorder,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const rpc = context.switchToRpc();
    const callerId = this.presence.callerOf(rpc.getContext());
    const generation = generationOf(rpc.getData());
    if (!callerId || !generation) return next.handle();
    return new Observable((subscriber) => {
      let ended = false;
      let probing = false;
      let reported = false;
      const whenGone = (then: () => void) => {
        if (probing || reported) return;
        probing = true;
        void this.goneForGood(callerId)
          .then((gone) => {
            if (gone && !reported) {
              reported = true;
              then();
            }
          })
          .finally(() => (probing = false));
      };
      const watch = setInterval(
        () =>
          whenGone(() => {
            this.report(generation);
            if (!ended) this.cancellations.cancel(generation.generationId);
          }),
        GONE_CALLER_WATCH_INTERVAL_MS,
      );
      const end = () => {
        ended = true;
        clearInterval(watch);
        probing = false;
        whenGone(() => this.report(generation));
      };
      const subscription = next.handle().subscribe({
        next: (value) => subscriber.next(value),
        error: (err: unknown) => {
          end();
          subscriber.error(err);
        },
        complete: () => {
          end();
          subscriber.complete();
        },
      });
      return () => {
        clearInterval(watch);
        subscription.unsubscribe();
      };
    });
  }

  private async goneForGood(callerId: string): Promise<boolean> {
    if (!(await this.presence.isGone(callerId))) return false;
    await sleep(GONE_CALLER_CONFIRM_MS);
    return this.presence.isGone(callerId);
  }

  private report({ generationId, organizationId }: WatchedGeneration): void {
    this.logger.warn(`Generation ${generationId} is undelivered: ${GONE_CALLER_REASON}`);
    this.recorder
      .undelivered({ generationId, organizationId, reason: GONE_CALLER_REASON })
      .catch((err: unknown) =>
        this.logger.error(
          `Generation ${generationId} may be charged: its undelivered report was not stored: ${(err as Error).message}`,
        ),
      );
  }
}

/** Marks generation handlers whose caller is watched by GoneCallerWatch. */
export function WatchesForGoneCaller(): MethodDecorator & ClassDecorator {
  return UseInterceptors(GoneCallerWatch);
}
