import { Inject, Injectable, OnApplicationShutdown, Optional } from '@nestjs/common';
import { ClientProxy, NatsRecord } from '@nestjs/microservices';
import {
  BroadcastContract,
  DomainError,
  isRpcErrorPayload,
  RpcContract,
  StreamContract,
} from '@gw/contracts';
import { headers as natsHeaders, type NatsConnection } from '@nats-io/transport-node';
import {
  catchError,
  defer,
  filter,
  finalize,
  firstValueFrom,
  from,
  identity,
  mergeMap,
  type MonoTypeOperatorFunction,
  Observable,
  throwError,
  timeout,
  TimeoutError,
} from 'rxjs';
import { AppMetrics } from '../observability/app-metrics';
import { currentRequestId, NATS_REQUEST_ID_HEADER } from '../observability/request-id';
import { SpanKind, startSpan, traceHeaders, tracer } from '../observability/tracing';
import { inSpan } from './traced-handling';
import { outcomeOf, RpcMetrics } from './rpc-metrics';
import { ClaimCheckSender, redeemingReplies } from './claim-checks';
import { isHeartbeat } from './heartbeats';
import { idleTimeout } from './idle-timeout';
import type { InProcessBus, RequestDelivery } from './in-process-bus';
import type { BlobStore } from '../blobs/blob-store';
import { ResponderWatch } from './responder-watch';
import { RPC_CLIENT_PROXY, TRANSPORT_OPTIONS, TransportOptions } from './transport-options';

export interface RpcCallOptions {
  /** Overrides the app's default RPC timeout for this call. */
  timeoutMs?: number;
  /**
   * For a call to a handler that sends heartbeats: the longest silence (no heartbeat, no answer)
   * before the call fails as `service_unavailable`, so a dead service or bus is noticed in seconds
   * while `timeoutMs` still bounds the whole call.
   */
  idleTimeoutMs?: number;
  /**
   * The caller built the message from values validated where they entered and bounds it checked:
   * a handler in the same process takes it without validating it again (decision 191).
   */
  builtByCaller?: boolean;
}

export interface StreamCallOptions {
  /** Longest wait for the first frame and between two frames (a heartbeat counts, and is not passed on). */
  idleTimeoutMs?: number;
  /** As `RpcCallOptions.builtByCaller`. */
  builtByCaller?: boolean;
}

/**
 * The one way an app calls another: typed by a contract, bounded by a timeout, and with every
 * failure turned into a DomainError (a remote coded error keeps its code; a missing or silent
 * service becomes `service_unavailable`).
 */
@Injectable()
export class RpcClient implements OnApplicationShutdown {
  /** How a call crosses: the in-process bus itself, or NATS with claim checks for what is too large for it. */
  private readonly wire:
    | { kind: 'in-process'; bus: InProcessBus }
    | { kind: 'nats'; claimChecks: ClaimCheckSender; blobs: BlobStore | null };
  /** Null on the in-process bus, where caller and service live and die together. */
  private readonly responders: ResponderWatch | null;
  /** Null in an app assembled without metrics (a test module). */
  private readonly metrics: RpcMetrics | null;

  constructor(
    @Inject(RPC_CLIENT_PROXY) private readonly proxy: ClientProxy,
    @Inject(TRANSPORT_OPTIONS) private readonly options: TransportOptions,
    @Optional() appMetrics?: AppMetrics,
  ) {
    this.metrics = appMetrics ? new RpcMetrics(appMetrics) : null;
    this.wire =
      options.kind === 'nats'
        ? {
            kind: 'nats',
            claimChecks: new ClaimCheckSender(options.blobs ?? null, async () => {
              await proxy.connect();
              return proxy.unwrap<NatsConnection>().info?.max_payload ?? 1024 * 1024;
            }),
            blobs: options.blobs ?? null,
          }
        : { kind: 'in-process', bus: options.bus };
    this.responders = options.kind === 'nats' ? new ResponderWatch(proxy) : null;
  }

  request<Request extends object, Response>(
    contract: RpcContract<Request, Response>,
    payload: Request,
    options: RpcCallOptions = {},
  ): Promise<Response> {
    const limit = options.timeoutMs ?? this.options.rpcTimeoutMs;
    const answer = firstValueFrom(
      this.send<Response>(contract.subject, payload, { builtByCaller: options.builtByCaller }).pipe(
        this.responders?.watching(contract.subject) ?? identity,
        this.overTheBus(idleTimeout(Math.min(limit, options.idleTimeoutMs ?? limit))),
        this.overTheBus(filter((frame) => !isHeartbeat(frame))),
        timeout(limit),
        catchError((err: unknown) => throwError(() => toDomainError(err, contract.subject))),
      ),
    );
    this.metrics?.observeAnswer(contract.subject, answer);
    return answer;
  }

  stream<Request extends object, Chunk>(
    contract: StreamContract<Request, Chunk>,
    payload: Request,
    options: StreamCallOptions = {},
  ): Observable<Chunk> {
    const wire = this.wire;
    if (wire.kind === 'in-process' && tracer() === null) {
      return this.streamInProcess<Chunk>(wire.bus, contract.subject, payload, options.builtByCaller);
    }
    const limit = options.idleTimeoutMs ?? this.options.rpcTimeoutMs;
    const delivery = { framesByReference: true, builtByCaller: options.builtByCaller };
    return this.send<Chunk>(contract.subject, payload, delivery).pipe(
      this.responders?.watching(contract.subject) ?? identity,
      this.overTheBus(idleTimeout(limit)),
      this.overTheBus(filter((frame) => !isHeartbeat(frame))),
      catchError((err: unknown) => throwError(() => toDomainError(err, contract.subject))),
      this.metrics?.observeStream<Chunk>(contract.subject) ?? identity,
    );
  }

  /**
   * What only a call over NATS needs: a service there can die or fall silent apart from its caller,
   * so its long calls send heartbeats and their callers an idle timeout. In one process neither can
   * happen, and handlers send no heartbeats there (HeartbeatInterceptor).
   */
  private overTheBus<T>(operator: MonoTypeOperatorFunction<T>): MonoTypeOperatorFunction<T> {
    return this.wire.kind === 'nats' ? operator : identity;
  }

  /**
   * A stream in one process, in one layer: the handler's frames are passed on as its replies come
   * (by reference, decision 179), a failure as a DomainError, and the call's duration recorded at
   * its end. A streamed answer crossed five operators per token here (decision 185).
   */
  private streamInProcess<Chunk>(
    bus: InProcessBus,
    subject: string,
    payload: object,
    builtByCaller = false,
  ): Observable<Chunk> {
    return new Observable<Chunk>((subscriber) => {
      const ended = this.metrics?.startStream(subject);
      const cancel = bus.request(
        subject,
        payload,
        ({ err, response, isDisposed }) => {
          if (err !== undefined) {
            const error = toDomainError(err, subject);
            ended?.(outcomeOf(error));
            return subscriber.error(error);
          }
          if (response !== undefined) subscriber.next(response as Chunk);
          if (isDisposed) {
            ended?.('ok');
            subscriber.complete();
          }
        },
        { framesByReference: true, builtByCaller },
      );
      return () => {
        ended?.('cancelled');
        cancel();
      };
    });
  }

  /** The call on its wire, inside a client span when tracing is on. */
  private send<Frame>(subject: string, payload: object, delivery: RequestDelivery = {}): Observable<Frame> {
    const active = tracer();
    if (active === null) return this.sendOnWire<Frame>(subject, payload, delivery, null);
    return inSpan(
      () =>
        startSpan(active, `send ${subject}`, SpanKind.CLIENT, {
          'messaging.system': this.wire.kind === 'nats' ? 'nats' : 'in_process',
          'messaging.destination.name': subject,
          'messaging.operation.type': 'send',
        }),
      (context) => this.sendOnWire<Frame>(subject, payload, delivery, traceHeaders(context)),
    );
  }

  /**
   * On NATS, the proxy's send, with a payload too large for the bus sent by claim check and its
   * object removed after the call, each reply that came by claim check redeemed, and the request id
   * and trace context of the call in NATS headers. On the in-process bus, the bus itself: Nest's
   * ClientProxy adds a connect, a defer and a mergeMap that every frame of a stream crossed
   * (decision 179), and the request id and trace context travel with the async context.
   */
  private sendOnWire<Frame>(
    subject: string,
    payload: object,
    delivery: RequestDelivery,
    trace: Record<string, string> | null,
  ): Observable<Frame> {
    const wire = this.wire;
    if (wire.kind === 'in-process') return wire.bus.request$(subject, payload, delivery) as Observable<Frame>;
    const requestId = currentRequestId();
    return defer(() => from(wire.claimChecks.outgoing(subject, payload))).pipe(
      mergeMap((outgoing) =>
        this.proxy
          .send<Frame, object>(subject, withHeaders(outgoing.payload, requestId, trace))
          .pipe(finalize(outgoing.release)),
      ),
      redeemingReplies(wire.blobs),
    ) as Observable<Frame>;
  }

  /**
   * Drains rather than closes: what this app published leaves, and the answers of requests still
   * open arrive, before the connection ends. The app stops its own work first (the gateway its HTTP
   * requests, a service its handlers), so little is open by then.
   */
  async onApplicationShutdown(): Promise<void> {
    if (this.options.kind === 'nats') {
      const nc = this.connection();
      if (nc && !nc.isClosed() && !nc.isDraining()) await nc.drain().catch(() => undefined);
    }
    await this.proxy.close();
  }

  private connection(): NatsConnection | null {
    try {
      return this.proxy.unwrap<NatsConnection>();
    } catch {
      return null;
    }
  }

  async broadcast<Event extends object>(contract: BroadcastContract<Event>, event: Event): Promise<void> {
    await firstValueFrom(this.proxy.emit(contract.subject, event), { defaultValue: undefined });
  }
}

/** The payload as a NATS record carrying the request id and trace context of the call, when it has them. */
function withHeaders(
  payload: object,
  requestId: string | undefined,
  trace: Record<string, string> | null,
): object {
  if (!requestId && trace === null) return payload;
  const headers = natsHeaders();
  if (requestId) headers.set(NATS_REQUEST_ID_HEADER, requestId);
  for (const [name, value] of Object.entries(trace ?? {})) headers.set(name, value);
  return new NatsRecord(payload, headers);
}

/**
 * A call that got no answer: the service or the bus went silent or away. Unlike an error the
 * service answered with, the caller cannot tell whether the work was done, or its answer lost.
 */
export class UnansweredCallError extends DomainError {
  constructor(message: string) {
    super('service_unavailable', message);
  }
}

export function toDomainError(err: unknown, subject: string): DomainError {
  if (err instanceof DomainError) return err;
  if (isRpcErrorPayload(err)) return DomainError.fromPayload(err);
  if (err instanceof TimeoutError) {
    return new UnansweredCallError(`The service behind ${subject} did not answer in time`);
  }
  return new UnansweredCallError(`The service behind ${subject} is not available`);
}
