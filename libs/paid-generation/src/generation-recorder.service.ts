import { Injectable, Logger, OnApplicationShutdown, Optional } from '@nestjs/common';
import {
  BillingEvents,
  GenerationFinishedEvent,
  type GenerationUndeliveredEvent,
  generationFinishedBoundsHold,
} from '@gw/contracts';
import { AppMetrics, DurableEvents, type EventDelivery, groupCommit, type MicroBatcher } from '@gw/platform';
import {
  type FinishedGeneration,
  GenerationOutboxRepository,
  type OutboxMessage,
  type PublishedMessage,
} from './generation-outbox.repository';
import type { NewAttempt } from './paid-generation-tables';
import { UpstreamMetrics } from './upstream-metrics';

/** The events an outbox holds, by subject. */
const OUTBOX_EVENTS = new Map<
  string,
  typeof BillingEvents.generationFinished | typeof BillingEvents.generationUndelivered
>([
  [BillingEvents.generationFinished.subject, BillingEvents.generationFinished],
  [BillingEvents.generationUndelivered.subject, BillingEvents.generationUndelivered],
]);

/** Well under the outbox relay's interval, so a marked event is never republished for want of its mark. */
const PUBLISHED_MARK_WAIT_MS = 50;

/**
 * Makes a finished generation durable: the event and its attempts are committed first, then
 * published; a publish that fails is left to the OutboxRelay, so the event is never lost. The
 * publish runs after the caller has its answer: once committed the event is safe, and the client
 * need not wait for billing to settle it. Both writes are group commits: the generations that finish
 * while one commit is in flight are stored together by the next, and so are the published marks.
 */
@Injectable()
export class GenerationRecorder implements OnApplicationShutdown {
  private readonly logger = new Logger('GenerationRecorder');
  private readonly publishing = new Set<Promise<boolean>>();
  private readonly saving: MicroBatcher<FinishedGeneration, void>;
  private readonly marking: MicroBatcher<PublishedMessage, void>;
  /** Null in an app assembled without metrics (a test module). */
  private readonly upstream: UpstreamMetrics | null;

  constructor(
    private readonly outbox: GenerationOutboxRepository,
    private readonly events: DurableEvents,
    @Optional() metrics?: AppMetrics,
  ) {
    this.upstream = metrics ? new UpstreamMetrics(metrics) : null;
    this.saving = groupCommit((generations) => this.outbox.saveFinished(generations));
    // A mark only spares the relay a republish (deduplicated anyway), so marks may wait to be written together.
    this.marking = groupCommit((messages) => this.outbox.markPublished(messages), {
      maxWaitMs: PUBLISHED_MARK_WAIT_MS,
    });
  }

  async finished(event: GenerationFinishedEvent, attempts: NewAttempt[]): Promise<void> {
    this.upstream?.finished(event, attempts);
    for (const { status, provider, errorCode, httpStatus } of attempts) {
      if (status !== 'failed') continue;
      const http = httpStatus === null ? '' : ` (HTTP ${httpStatus})`;
      this.logger.warn(`${provider} failed for ${event.model}: ${errorCode}${http}`);
    }
    const message = {
      messageId: event.generationId,
      subject: BillingEvents.generationFinished.subject,
      payload: event,
    };
    const delivery: EventDelivery = { builtByCaller: generationFinishedBoundsHold(event) };
    try {
      await this.saving.submit({
        organizationId: event.organizationId,
        generationId: event.generationId,
        attempts,
        event: message,
      });
    } catch (err) {
      // Without the database the outbox cannot hold the event: publishing it directly is the best left.
      this.logger.error(
        `Event ${event.generationId} not stored, publishing directly: ${(err as Error).message}`,
      );
      await this.events.publish(BillingEvents.generationFinished, event, event.generationId, delivery);
      return;
    }
    this.publishInBackground(event.organizationId, message, delivery);
  }

  /**
   * Stores and publishes the report that a generation's answer could not be delivered, made by
   * inference when the gateway that asked for it is gone; the same message id as the gateway's own
   * report of it, so JetStream keeps one.
   */
  async undelivered(event: GenerationUndeliveredEvent): Promise<void> {
    const message = {
      messageId: `undelivered-${event.generationId}`,
      subject: BillingEvents.generationUndelivered.subject,
      payload: event,
    };
    await this.outbox.saveMessage(event.organizationId, message);
    this.publishInBackground(event.organizationId, message);
  }

  private publishInBackground(
    organizationId: string,
    message: OutboxMessage,
    delivery?: EventDelivery,
  ): void {
    const publishing = this.publish(organizationId, message, delivery);
    this.publishing.add(publishing);
    void publishing.finally(() => this.publishing.delete(publishing));
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all(this.publishing);
  }

  /**
   * Publishes one stored event; JetStream deduplicates by its message id, billing is idempotent by the
   * generation. Only the event this process just built says so (`delivery`): one the relay read back
   * may have been written by another version, and is validated where it arrives.
   */
  async publish(organizationId: string, message: OutboxMessage, delivery?: EventDelivery): Promise<boolean> {
    const { messageId, subject } = message;
    try {
      const contract = OUTBOX_EVENTS.get(subject);
      if (!contract) throw new Error(`No event is published on ${subject}`);
      await this.events.publish(contract, message.payload as object, messageId, delivery);
      await this.marking.submit({ organizationId, messageId });
      return true;
    } catch (err) {
      this.logger.warn(`Event ${messageId} not published yet, the relay retries: ${(err as Error).message}`);
      await this.outbox.countFailedPublish(organizationId, messageId).catch(() => undefined);
      return false;
    }
  }
}
