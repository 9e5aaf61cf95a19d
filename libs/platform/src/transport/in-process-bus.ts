import { Observable } from 'rxjs';

/** A reply packet as Nest's servers produce it (`WritePacket` without the id). */
export interface ReplyPacket {
  err?: unknown;
  response?: unknown;
  isDisposed?: boolean;
}

export type RequestHandler = (data: unknown, reply: (packet: ReplyPacket) => void) => () => void;
export type EventHandler = (data: unknown) => Promise<void>;

export const NO_HANDLER_MESSAGE = 'There is no matching message handler defined in the remote service.';

/** How the replies of one request cross the bus. */
export interface RequestDelivery {
  /**
   * A stream's frames are passed as they are, not JSON round-tripped: each is built for this one
   * caller, which only serializes it (decision 179). A frame per token made the round trip the
   * largest cost of a streamed answer.
   */
  framesByReference?: boolean;
  /** The caller built the message itself: see `builtByItsCaller`. */
  builtByCaller?: boolean;
}

/** How an event crosses the bus. */
export interface EventDelivery {
  /** The publisher built the event itself: see `builtByItsCaller`. */
  builtByCaller?: boolean;
}

/** The copies the bus delivered of messages their senders built (decision 191). */
const builtByCallers = new WeakSet<object>();

/**
 * Whether this object is the bus's copy of a message its sender built itself, from values it
 * validated where they entered (an HTTP body, a stored row) or computed, and whose bounds it
 * checked where it built them. Such a message is not validated again on arrival: in one process the
 * handler runs the same code the sender was tested with. On NATS nothing is marked, so a message
 * from another process (another version, perhaps) is always validated.
 */
export function builtByItsCaller(message: unknown): boolean {
  return typeof message === 'object' && message !== null && builtByCallers.has(message);
}

/**
 * Stands in for NATS inside one process. Every request is JSON round-tripped on the way in, and
 * every answer of a plain request on the way out, so a handler and its caller see exactly what they
 * would see over the wire (no shared references, Dates as strings, class instances as plain objects).
 */
export class InProcessBus {
  private readonly requestHandlers = new Map<string, RequestHandler[]>();
  private readonly eventHandlers = new Map<string, EventHandler[]>();
  private readonly roundRobin = new Map<string, number>();

  registerRequestHandler(subject: string, handler: RequestHandler): () => void {
    return this.add(this.requestHandlers, subject, handler);
  }

  registerEventHandler(subject: string, handler: EventHandler): () => void {
    return this.add(this.eventHandlers, subject, handler);
  }

  hasRequestHandler(subject: string): boolean {
    return (this.requestHandlers.get(subject)?.length ?? 0) > 0;
  }

  /** Sends a request; replies arrive through `reply`. Returns a teardown that cancels the handler's stream. */
  request(
    subject: string,
    data: unknown,
    reply: (packet: ReplyPacket) => void,
    delivery: RequestDelivery = {},
  ): () => void {
    const handlers = this.requestHandlers.get(subject) ?? [];
    if (handlers.length === 0) {
      queueMicrotask(() => reply({ err: NO_HANDLER_MESSAGE, isDisposed: true }));
      return () => undefined;
    }
    const turn = (this.roundRobin.get(subject) ?? 0) % handlers.length;
    this.roundRobin.set(subject, turn + 1);
    const deliver = delivery.framesByReference
      ? reply
      : (packet: ReplyPacket) => reply(roundTrip(packet) as ReplyPacket);
    return handlers[turn](copyOf(data, delivery.builtByCaller === true), deliver);
  }

  /** Delivers an event to every handler and resolves when all of them have finished. */
  async publish(subject: string, data: unknown, delivery: EventDelivery = {}): Promise<number> {
    const handlers = this.eventHandlers.get(subject) ?? [];
    await Promise.all(handlers.map((handler) => handler(copyOf(data, delivery.builtByCaller === true))));
    return handlers.length;
  }

  /** Same as `request`, as an Observable of the response values. */
  request$(subject: string, data: unknown, delivery: RequestDelivery = {}): Observable<unknown> {
    return new Observable((subscriber) =>
      this.request(
        subject,
        data,
        ({ err, response, isDisposed }) => {
          if (err !== undefined) return subscriber.error(err);
          if (response !== undefined) subscriber.next(response);
          if (isDisposed) subscriber.complete();
        },
        delivery,
      ),
    );
  }

  private add<H>(map: Map<string, H[]>, subject: string, handler: H): () => void {
    const list = map.get(subject) ?? [];
    list.push(handler);
    map.set(subject, list);
    return () => {
      const current = map.get(subject) ?? [];
      map.set(
        subject,
        current.filter((h) => h !== handler),
      );
    };
  }
}

/** A message as the handler receives it: a wire copy, marked when its sender built it. */
function copyOf(message: unknown, builtByCaller: boolean): unknown {
  const copy = roundTrip(message);
  if (builtByCaller && typeof copy === 'object' && copy !== null) builtByCallers.add(copy);
  return copy;
}

function roundTrip(value: unknown): unknown {
  return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
}
