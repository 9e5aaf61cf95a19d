/**
 * A contract names one NATS subject and the message class that travels on it, so the caller and
 * the handler cannot disagree about either. The class is the single source of truth: its
 * class-validator rules are what every handler checks (libs/platform `HandlesRpc`), and the
 * request type is its instance type. Responses are not validated (a service trusts its own
 * answers), so they stay phantom types.
 */
export type MessageClass<Message extends object = object> = new () => Message;

export interface RpcContract<Request extends object, Response> {
  readonly kind: 'rpc';
  readonly subject: string;
  readonly requestClass: MessageClass<Request>;
  readonly __response?: Response;
}

export interface StreamContract<Request extends object, Chunk> {
  readonly kind: 'stream';
  readonly subject: string;
  readonly requestClass: MessageClass<Request>;
  readonly __chunk?: Chunk;
}

/** Fire-and-forget broadcast (core NATS): every subscriber, no queue group, no durability. */
export interface BroadcastContract<Event extends object> {
  readonly kind: 'broadcast';
  readonly subject: string;
  readonly eventClass: MessageClass<Event>;
}

/** Durable fact on JetStream: stored until a durable consumer acknowledges it. */
export interface DurableEventContract<Event extends object> {
  readonly kind: 'durable';
  readonly subject: string;
  readonly eventClass: MessageClass<Event>;
}

/** A contract whose handler receives a request and answers (once, or as a stream). */
export type RequestContract = RpcContract<object, unknown> | StreamContract<object, unknown>;

/** The message a handler of `C` receives: the instance type of the contract's class. */
export type RequestOf<C> =
  C extends RpcContract<infer Request, unknown>
    ? Request
    : C extends StreamContract<infer Request, unknown>
      ? Request
      : C extends BroadcastContract<infer Event>
        ? Event
        : C extends DurableEventContract<infer Event>
          ? Event
          : never;

export const rpc = <Request extends object, Response>(
  subject: string,
  requestClass: MessageClass<Request>,
): RpcContract<Request, Response> => ({ kind: 'rpc', subject, requestClass });

export const stream = <Request extends object, Chunk>(
  subject: string,
  requestClass: MessageClass<Request>,
): StreamContract<Request, Chunk> => ({ kind: 'stream', subject, requestClass });

export const broadcast = <Event extends object>(
  subject: string,
  eventClass: MessageClass<Event>,
): BroadcastContract<Event> => ({ kind: 'broadcast', subject, eventClass });

export const durableEvent = <Event extends object>(
  subject: string,
  eventClass: MessageClass<Event>,
): DurableEventContract<Event> => ({ kind: 'durable', subject, eventClass });

/** The JetStream stream that holds every durable event; subjects start with `events.`. */
export const DURABLE_EVENT_STREAM = 'GATEWAY_EVENTS';
export const DURABLE_EVENT_SUBJECT_PREFIX = 'events.';
