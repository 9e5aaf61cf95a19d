import { type ClientProxy } from '@nestjs/microservices';
import { Empty, type NatsConnection, NoRespondersError, RequestError } from '@nats-io/transport-node';
import {
  distinctUntilChanged,
  EMPTY,
  exhaustMap,
  filter,
  from,
  map,
  merge,
  type MonoTypeOperatorFunction,
  Observable,
  Subject,
  switchMap,
  timer,
} from 'rxjs';

/** How long a lost connection may take to come back before the calls in flight give up. */
const RECONNECT_GRACE_MS = 1_500;
/** A call that has waited this long, and every period after, asks whether anyone still serves its subject. */
const PROBE_EVERY_MS = 1_000;
/** One probe's answer serves every call to the same subject for this long, so many calls cost one probe. */
const PROBE_REUSE_MS = 500;
/** How long a probe waits; no answer in time proves nothing (a busy bus or service), and the call waits on. */
const PROBE_TIMEOUT_MS = 1_000;

/**
 * The subject every replica serving `subject` answers (LivenessServerNats): NATS replies "no
 * responders" at once when no process subscribes to it any more.
 */
export function livenessSubject(subject: string): string {
  return `liveness.${subject}`;
}

/** A call whose answer can no longer come: its connection is lost, or nobody serves its subject. */
export class ResponderGoneError extends Error {}

/**
 * Ends a call in flight as soon as its answer can no longer come, instead of at its timeout: when
 * the connection to NATS is lost and not back within RECONNECT_GRACE_MS (the connection's status
 * events), or when NATS answers "no responders" to a probe of the subject's liveness, which it does
 * once the last process serving the subject is gone. A responder that is slow answers the probes,
 * so its caller waits on until the timeout. The limit: a dead replica's calls are noticed this way
 * only when no other replica serves the subject; otherwise heartbeats or the timeout end them.
 */
export class ResponderWatch {
  private readonly transportLost = new Subject<void>();
  private readonly recentProbes = new Map<string, Promise<boolean>>();

  constructor(private readonly proxy: ClientProxy) {
    proxy.status
      .pipe(
        map((status) => status === 'connected'),
        distinctUntilChanged(),
        switchMap((connected) => (connected ? EMPTY : timer(RECONNECT_GRACE_MS))),
      )
      .subscribe(() => this.transportLost.next());
  }

  /** Passes a call's frames on, and fails it with ResponderGoneError once its answer can no longer come. */
  watching<Frame>(subject: string): MonoTypeOperatorFunction<Frame> {
    const gone = merge(
      this.transportLost.pipe(map(() => `The connection to NATS was lost while ${subject} was at work`)),
      timer(PROBE_EVERY_MS, PROBE_EVERY_MS).pipe(
        exhaustMap(() => from(this.isServed(subject))),
        filter((served) => !served),
        map(() => `Nobody serves ${subject} any more`),
      ),
    );
    return (frames) =>
      new Observable<Frame>((subscriber) => {
        const watch = gone.subscribe((reason) => subscriber.error(new ResponderGoneError(reason)));
        const call = frames.subscribe(subscriber);
        return () => {
          watch.unsubscribe();
          call.unsubscribe();
        };
      });
  }

  /** False only when NATS says that no process serves `subject` any more. */
  private isServed(subject: string): Promise<boolean> {
    const recent = this.recentProbes.get(subject);
    if (recent) return recent;
    const probe = this.probe(subject);
    this.recentProbes.set(subject, probe);
    setTimeout(() => this.recentProbes.delete(subject), PROBE_REUSE_MS).unref();
    return probe;
  }

  private async probe(subject: string): Promise<boolean> {
    try {
      await this.proxy.connect();
      await this.proxy
        .unwrap<NatsConnection>()
        .request(livenessSubject(subject), Empty, { timeout: PROBE_TIMEOUT_MS });
      return true;
    } catch (err) {
      return !(err instanceof NoRespondersError || (err instanceof RequestError && err.isNoResponders()));
    }
  }
}
