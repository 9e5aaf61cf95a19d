/**
 * A contract names one NATS subject and the types that travel on it, so the caller and the
 * handler cannot disagree about either. The phantom fields only carry types.
 */
export interface RpcContract<Request, Response> {
  readonly kind: 'rpc';
  readonly subject: string;
  readonly __request?: Request;
  readonly __response?: Response;
}

export interface StreamContract<Request, Chunk> {
  readonly kind: 'stream';
  readonly subject: string;
  readonly __request?: Request;
  readonly __chunk?: Chunk;
}

/** Fire-and-forget broadcast (core NATS): every subscriber, no queue group, no durability. */
export interface BroadcastContract<Event> {
  readonly kind: 'broadcast';
  readonly subject: string;
  readonly __event?: Event;
}

/** Durable fact on JetStream: stored until a durable consumer acknowledges it. */
export interface DurableEventContract<Event> {
  readonly kind: 'durable';
  readonly subject: string;
  readonly __event?: Event;
}

export const rpc = <Request, Response>(subject: string): RpcContract<Request, Response> => ({
  kind: 'rpc',
  subject,
});
export const stream = <Request, Chunk>(subject: string): StreamContract<Request, Chunk> => ({
  kind: 'stream',
  subject,
});
export const broadcast = <Event>(subject: string): BroadcastContract<Event> => ({
  kind: 'broadcast',
  subject,
});
export const durableEvent = <Event>(subject: string): DurableEventContract<Event> => ({
  kind: 'durable',
  subject,
});

/** The JetStream stream that holds every durable event; subjects start with `events.`. */
export const DURABLE_EVENT_STREAM = 'GATEWAY_EVENTS';
export const DURABLE_EVENT_SUBJECT_PREFIX = 'events.';
