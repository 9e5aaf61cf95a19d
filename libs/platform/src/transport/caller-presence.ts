import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { ClientProxy, NatsContext } from '@nestjs/microservices';
import {
  Empty,
  NoRespondersError,
  RequestError,
  type NatsConnection,
  type Subscription,
} from '@nats-io/transport-node';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { RPC_CLIENT_PROXY, TRANSPORT_OPTIONS, type TransportOptions } from './transport-options';

/** The NATS header that names the process a request came from (its caller id). */
export const CALLER_HEADER = 'Gw-Caller';

/** This process's caller id: one per process, so a restarted process is a new caller. */
export const CALLER_ID = randomUUID();

/** How long a probe waits for its answer; no answer in time is no proof that the caller is gone. */
const PROBE_TIMEOUT_MS = 2_000;
/**
 * How long one probe's result is reused for every call from the same caller, so that many calls in
 * flight cost one probe per caller.
 */
const PROBE_REUSE_MS = 1_000;

/** How long a process waits before it tries again to answer for its presence. */
const ANSWER_RETRY_MS = 1_000;

/** The subject a process answers on while it lives; services probe it to learn whether a caller is gone. */
export const presenceSubject = (callerId: string) => `presence.${callerId}`;

/**
 * Whether the process that sent a request is still there (docs/decisions.md, gone callers). Each
 * process's RpcClient names it in every request (CALLER_HEADER) and this provider answers probes on
 * `presence.<caller id>` for as long as the process lives. A service asks: NATS answers "no
 * responders" at once when no process subscribes to the subject any more, which is the proof that
 * the caller is gone (it crashed, or it was stopped); a probe that merely gets no answer (the bus is
 * away, the caller is frozen) proves nothing. On the in-process bus caller and service share one
 * process: no request names a caller.
 */
@Injectable()
export class CallerPresence implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('CallerPresence');
  private readonly recent = new Map<string, Promise<boolean>>();
  private answering: Subscription | null = null;
  private stopped = false;

  constructor(
    @Inject(RPC_CLIENT_PROXY) private readonly proxy: ClientProxy,
    @Inject(TRANSPORT_OPTIONS) private readonly options: TransportOptions,
  ) {}

  onApplicationBootstrap(): void {
    if (this.options.kind === 'nats') void this.answerProbes();
  }

  onApplicationShutdown(): void {
    this.stopped = true;
    this.answering?.unsubscribe();
  }

  /** The caller a request received over NATS names; null when it names none. */
  callerOf(context: unknown): string | null {
    if (!(context instanceof NatsContext)) return null;
    const headers = context.getHeaders() as { get(name: string): string } | undefined;
    return headers?.get(CALLER_HEADER) || null;
  }

  /** True only when NATS says that no process answers for the caller any more. */
  isGone(callerId: string): Promise<boolean> {
    const known = this.recent.get(callerId);
    if (known) return known;
    const probe = this.probe(callerId);
    this.recent.set(callerId, probe);
    setTimeout(() => this.recent.delete(callerId), PROBE_REUSE_MS).unref();
    return probe;
  }

  private async probe(callerId: string): Promise<boolean> {
    try {
      await (
        await this.connection()
      ).request(presenceSubject(callerId), Empty, {
        timeout: PROBE_TIMEOUT_MS,
      });
      return false;
    } catch (err) {
      const gone = err instanceof NoRespondersError || (err instanceof RequestError && err.isNoResponders());
      if (!gone) this.logger.debug(`Caller ${callerId} not probed: ${(err as Error).message}`);
      return gone;
    }
  }

  /**
   * Subscribes to this process's presence subject, trying again each second while NATS cannot be
   * reached (an app may start before the bus); NATS subscribes it again by itself after a reconnect.
   */
  private async answerProbes(): Promise<void> {
    while (!this.stopped && !this.answering) {
      try {
        this.answering = (await this.connection()).subscribe(presenceSubject(CALLER_ID), {
          callback: (err, message) => {
            if (!err) message.respond(Empty);
          },
        });
      } catch (err) {
        this.logger.warn(`Presence not answered yet, NATS is not reachable: ${(err as Error).message}`);
        await sleep(ANSWER_RETRY_MS);
      }
    }
  }

  private async connection(): Promise<NatsConnection> {
    await this.proxy.connect();
    return this.proxy.unwrap<NatsConnection>();
  }
}
