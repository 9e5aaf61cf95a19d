import { Logger, type OnApplicationShutdown } from '@nestjs/common';
import { DURABLE_EVENT_STREAM, DURABLE_EVENT_SUBJECT_PREFIX, type DurableEventContract } from '@gw/contracts';
import {
  AckPolicy,
  type ConsumerMessages,
  DeliverPolicy,
  jetstream,
  type JetStreamClient,
  jetstreamManager,
  type JsMsg,
} from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { type BatchOutcome, MicroBatcher } from '../batching/micro-batcher';
import { type EventDelivery, type InProcessBus } from '../transport/in-process-bus';
import { type NatsAuth } from '../transport/transport-options';
import { MessageValidationPipe } from '../validation/message-validation.pipe';

export type DurableEventHandler<Event> = (event: Event) => Promise<void>;

/**
 * Hands a subscriber only events its contract's class accepts. An event the class refuses would be
 * refused on every redelivery, so it is logged and dropped (acknowledged), never retried forever.
 */
function validatedHandler<Event extends object>(
  contract: DurableEventContract<Event>,
  handler: DurableEventHandler<Event>,
  logger: Logger,
): (data: unknown) => Promise<void> {
  const pipe = new MessageValidationPipe(contract.eventClass, 'strip');
  return async (data) => {
    let event: Event;
    try {
      event = (await pipe.transform(data)) as Event;
    } catch (err) {
      logger.error(`Dropping ${contract.subject} event that can never be handled: ${(err as Error).message}`);
      return;
    }
    await handler(event);
  };
}

/**
 * Handles the events of one batch together (one transaction, say) and answers one outcome per
 * event, in order: an event whose outcome is an error is offered again later, the others are done.
 */
export type DurableBatchHandler<Event> = (events: Event[]) => Promise<BatchOutcome<void>[]>;

export interface DurableBatchOptions {
  /** A batch is handed over once this many events wait… */
  maxItems: number;
  /** …or this long after the first of them arrived. */
  maxWaitMs: number;
}

/**
 * The batch form of `validatedHandler`: events the contract refuses are logged and dropped (done),
 * data that is not even JSON fails alone, and the rest reach the handler in their order.
 */
function validatedBatchHandler<Event extends object>(
  contract: DurableEventContract<Event>,
  handler: DurableBatchHandler<Event>,
  logger: Logger,
): (read: (() => unknown)[]) => Promise<BatchOutcome<void>[]> {
  const pipe = new MessageValidationPipe(contract.eventClass, 'strip');
  return async (read) => {
    const outcomes: BatchOutcome<void>[] = [];
    const events: { event: Event; index: number }[] = [];
    for (const [index, data] of read.entries()) {
      outcomes.push({ ok: true, value: undefined });
      let raw: unknown;
      try {
        raw = data();
      } catch (error) {
        outcomes[index] = { ok: false, error };
        continue;
      }
      try {
        events.push({ event: (await pipe.transform(raw)) as Event, index });
      } catch (err) {
        logger.error(
          `Dropping ${contract.subject} event that can never be handled: ${(err as Error).message}`,
        );
      }
    }
    if (events.length === 0) return outcomes;
    const handled = await handler(events.map((e) => e.event));
    events.forEach(({ index }, at) => (outcomes[index] = handled[at]));
    return outcomes;
  };
}

export interface DurableSubscription {
  stop(): Promise<void>;
}

/**
 * Money-relevant facts. `publish` resolves only once the event is stored (JetStream ack) or, in
 * the embedded mode, handled; `messageId` deduplicates re-publication of the same fact.
 * `subscribe` hands each event to `handler` until it resolves (at-least-once delivery), so
 * handlers must be idempotent.
 */
export abstract class DurableEvents {
  abstract publish<Event extends object>(
    contract: DurableEventContract<Event>,
    event: Event,
    messageId: string,
    delivery?: EventDelivery,
  ): Promise<void>;
  abstract subscribe<Event extends object>(
    contract: DurableEventContract<Event>,
    durableName: string,
    handler: DurableEventHandler<Event>,
  ): Promise<DurableSubscription>;
  /**
   * Like `subscribe`, but hands the events over in batches, in their order, one batch at a time;
   * each event is acknowledged once the batch that holds it succeeded for it. A batch whose handler
   * throws is handled again one event at a time, so one bad event never holds the others back.
   */
  abstract subscribeBatches<Event extends object>(
    contract: DurableEventContract<Event>,
    durableName: string,
    handler: DurableBatchHandler<Event>,
    options: DurableBatchOptions,
  ): Promise<DurableSubscription>;
}

const REDELIVERY_DELAY_MS = 1_000;

export interface JetStreamDurableEventsOptions {
  /**
   * How long an event handed to a subscriber may stay unacknowledged before JetStream offers it
   * again. It also bounds the delay for events that were on their way to a subscriber that stopped.
   */
  ackWaitMs?: number;
  /** Credentials and TLS for the connection; none on an open bus. */
  auth?: NatsAuth;
}

export class JetStreamDurableEvents extends DurableEvents implements OnApplicationShutdown {
  private readonly logger = new Logger('DurableEvents');
  private connection?: Promise<NatsConnection>;
  private streamReady?: Promise<void>;
  private readonly consumers: ConsumerMessages[] = [];

  private readonly ackWaitNs: number;
  private readonly auth: NatsAuth;

  constructor(
    private readonly servers: string,
    options: JetStreamDurableEventsOptions = {},
  ) {
    super();
    this.ackWaitNs = (options.ackWaitMs ?? 30_000) * 1_000_000;
    this.auth = options.auth ?? {};
  }

  async publish<Event extends object>(
    contract: DurableEventContract<Event>,
    event: Event,
    messageId: string,
    // A publisher's word that it built the event stays in its process: the consumer validates it.
    _delivery?: EventDelivery,
  ): Promise<void> {
    const js = await this.client();
    await js.publish(contract.subject, JSON.stringify(event), { msgID: messageId });
  }

  async subscribe<Event extends object>(
    contract: DurableEventContract<Event>,
    durableName: string,
    handler: DurableEventHandler<Event>,
  ): Promise<DurableSubscription> {
    const messages = await this.consume(contract, durableName, 64);
    const handle = validatedHandler(contract, handler, this.logger);
    const loop = (async () => {
      for await (const message of messages) await this.handle(message, handle);
    })();
    return {
      stop: async () => {
        await messages.close();
        await loop;
      },
    };
  }

  async subscribeBatches<Event extends object>(
    contract: DurableEventContract<Event>,
    durableName: string,
    handler: DurableBatchHandler<Event>,
    options: DurableBatchOptions,
  ): Promise<DurableSubscription> {
    // Twice a batch in the client's buffer: the next batch is there when the current one commits.
    const buffered = Math.max(64, 2 * options.maxItems);
    const messages = await this.consume(contract, durableName, buffered);
    const handle = validatedBatchHandler(contract, handler, this.logger);
    const batcher = new MicroBatcher<JsMsg, void>({
      ...options,
      maxInFlight: 1,
      run: (batch) => handle(batch.map((message) => () => message.json<unknown>())),
    });
    const unanswered = new Set<Promise<void>>();
    const loop = (async () => {
      for await (const message of messages) {
        const answered = batcher.submit(message).then(
          () => message.ack(),
          (err: unknown) => this.redeliverLater(message, err),
        );
        unanswered.add(answered);
        void answered.finally(() => unanswered.delete(answered));
        if (unanswered.size >= buffered) await Promise.race(unanswered);
      }
      await Promise.all(unanswered);
    })();
    return {
      stop: async () => {
        await messages.close();
        await loop;
      },
    };
  }

  private async consume(
    contract: DurableEventContract<object>,
    durableName: string,
    maxMessages: number,
  ): Promise<ConsumerMessages> {
    const js = await this.client();
    const jsm = await jetstreamManager(await this.nats());
    await jsm.consumers.add(DURABLE_EVENT_STREAM, {
      durable_name: durableName,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      filter_subject: contract.subject,
      ack_wait: this.ackWaitNs,
      max_deliver: -1,
    });
    const consumer = await js.consumers.get(DURABLE_EVENT_STREAM, durableName);
    const messages = await consumer.consume({ max_messages: maxMessages });
    this.consumers.push(messages);
    return messages;
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all(this.consumers.map((c) => c.close()));
    const nc = await this.connection?.catch(() => undefined);
    if (nc && !nc.isClosed()) await nc.drain();
  }

  private async handle(message: JsMsg, handler: (data: unknown) => Promise<void>): Promise<void> {
    try {
      await handler(message.json<unknown>());
      message.ack();
    } catch (err) {
      this.redeliverLater(message, err);
    }
  }

  private redeliverLater(message: JsMsg, err: unknown): void {
    this.logger.warn(
      `Event ${message.subject} #${message.seq} will be redelivered: ${(err as Error).message}`,
    );
    message.nak(REDELIVERY_DELAY_MS);
  }

  /**
   * Reconnects for as long as the broker is away, and a first connection that failed is tried
   * again on the next call: a publisher retrying across an outage must not keep a dead connection.
   */
  private nats(): Promise<NatsConnection> {
    this.connection ??= connect({
      servers: this.servers,
      ...this.auth,
      name: 'durable-events',
      maxReconnectAttempts: -1,
    }).catch((err: unknown) => {
      this.connection = undefined;
      throw err;
    });
    return this.connection;
  }

  private async client(): Promise<JetStreamClient> {
    const nc = await this.nats();
    this.streamReady ??= ensureStream(nc).catch((err: unknown) => {
      this.streamReady = undefined;
      throw err;
    });
    await this.streamReady;
    return jetstream(nc);
  }
}

async function ensureStream(nc: NatsConnection): Promise<void> {
  const jsm = await jetstreamManager(nc);
  const config = { name: DURABLE_EVENT_STREAM, subjects: [`${DURABLE_EVENT_SUBJECT_PREFIX}>`] };
  try {
    await jsm.streams.info(DURABLE_EVENT_STREAM);
  } catch {
    try {
      await jsm.streams.add(config);
    } catch (err) {
      // Another replica may have created it between our lookup and our add.
      await jsm.streams.info(DURABLE_EVENT_STREAM).catch(() => {
        throw err;
      });
    }
  }
}

/**
 * Embedded mode: the subscriber runs inside `publish`, so a publisher that keeps its own outbox
 * retries until the handler succeeded, which gives the same at-least-once guarantee.
 */
export class InProcessDurableEvents extends DurableEvents {
  private readonly logger = new Logger('DurableEvents');

  constructor(private readonly bus: InProcessBus) {
    super();
  }

  async publish<Event extends object>(
    contract: DurableEventContract<Event>,
    event: Event,
    _messageId?: string,
    delivery: EventDelivery = {},
  ): Promise<void> {
    const delivered = await this.bus.publish(`durable:${contract.subject}`, event, delivery);
    if (delivered === 0) throw new Error(`No consumer is subscribed to ${contract.subject}`);
  }

  async subscribe<Event extends object>(
    contract: DurableEventContract<Event>,
    _durableName: string,
    handler: DurableEventHandler<Event>,
  ): Promise<DurableSubscription> {
    const unregister = this.bus.registerEventHandler(
      `durable:${contract.subject}`,
      validatedHandler(contract, handler, this.logger),
    );
    return { stop: async () => unregister() };
  }

  async subscribeBatches<Event extends object>(
    contract: DurableEventContract<Event>,
    _durableName: string,
    handler: DurableBatchHandler<Event>,
    options: DurableBatchOptions,
  ): Promise<DurableSubscription> {
    const handle = validatedBatchHandler(contract, handler, this.logger);
    const batcher = new MicroBatcher<unknown, void>({
      ...options,
      maxInFlight: 1,
      run: (batch) => handle(batch.map((data) => () => data)),
    });
    const unregister = this.bus.registerEventHandler(`durable:${contract.subject}`, (data) =>
      batcher.submit(data),
    );
    return {
      stop: async () => {
        unregister();
        await batcher.drain();
      },
    };
  }
}
