import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, IsNull, LessThan } from 'typeorm';
import { BEGIN_WITHOUT_WAL_FLUSH, preparedStatement, runPipelinedTransaction } from '@gw/platform/database';
import type { EventOutboxRow, NewAttempt, PaidGenerationTables } from './paid-generation-tables';

export const PAID_GENERATION_TABLES = Symbol('PAID_GENERATION_TABLES');

export interface OutboxMessage {
  messageId: string;
  subject: string;
  payload: unknown;
}

/** One finished generation as it is stored: its attempts and the event that reports it. */
export interface FinishedGeneration {
  organizationId: string;
  generationId: string;
  attempts: NewAttempt[];
  event: OutboxMessage;
}

export interface PublishedMessage {
  organizationId: string;
  messageId: string;
}

@Injectable()
export class GenerationOutboxRepository {
  private readonly attemptsTable: string;
  private readonly outboxTable: string;
  /** The two statements of every paid generation, parsed and planned once per connection (decision 194). */
  private readonly saveFinishedStatement: string;
  private readonly markPublishedStatement: string;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(PAID_GENERATION_TABLES) private readonly tables: PaidGenerationTables,
  ) {
    // The schema is the service's own constant, never input: quoting it is enough to place it in SQL.
    this.attemptsTable = `"${tables.schema}"."request_attempts"`;
    this.outboxTable = `"${tables.schema}"."event_outbox"`;
    this.saveFinishedStatement = preparedStatement(
      `WITH "finished" AS (
         SELECT * FROM jsonb_to_recordset($1::jsonb) AS f(
           "generationId" text, "organizationId" uuid, "messageId" text, "subject" text, "payload" jsonb,
           "attempts" jsonb)
       ), "attempts" AS (
         INSERT INTO ${this.attemptsTable}
           ("generation_id", "organization_id", "attempt", "provider", "status", "error_code", "error_message",
            "http_status", "started_at", "duration_ms")
         SELECT f."generationId", f."organizationId", a."attempt", a."provider", a."status", a."errorCode",
                a."errorMessage", a."httpStatus", a."startedAt", a."durationMs"
           FROM "finished" f CROSS JOIN LATERAL jsonb_to_recordset(f."attempts") AS a(
             "attempt" integer, "provider" text, "status" text, "errorCode" text, "errorMessage" text,
             "httpStatus" integer, "startedAt" timestamptz, "durationMs" integer)
       )
       INSERT INTO ${this.outboxTable} ("message_id", "organization_id", "subject", "payload")
       SELECT "messageId", "organizationId", "subject", "payload" FROM "finished"`,
    );
    this.markPublishedStatement = preparedStatement(
      `UPDATE ${this.outboxTable} SET "published_at" = now()
          WHERE "published_at" IS NULL
            AND ("organization_id", "message_id") IN (SELECT * FROM unnest($1::uuid[], $2::text[]))`,
    );
  }

  /**
   * Each generation's attempts and the event that reports them commit together, so neither exists
   * without the other; several generations (a group commit) go in one statement, which is atomic on
   * its own and costs one round trip and one WAL flush for all of them.
   */
  async saveFinished(generations: readonly FinishedGeneration[]): Promise<void> {
    await this.dataSource.query(this.saveFinishedStatement, [
      JSON.stringify(
        generations.map(({ organizationId, generationId, attempts, event }) => ({
          generationId,
          organizationId,
          messageId: event.messageId,
          subject: event.subject,
          payload: event.payload,
          attempts,
        })),
      ),
    ]);
  }

  /** One event on its own; storing it again (a retried report) keeps the first. */
  async saveMessage(organizationId: string, message: OutboxMessage): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO ${this.outboxTable} ("message_id", "organization_id", "subject", "payload")
       VALUES ($1, $2, $3, $4::jsonb) ON CONFLICT DO NOTHING`,
      [message.messageId, organizationId, message.subject, JSON.stringify(message.payload)],
    );
  }

  /**
   * Marks events published, many at a time. Committed without waiting for the WAL flush: a mark
   * lost in a crash only makes the relay publish that event again, which JetStream and billing
   * both deduplicate by its id. One round trip for BEGIN, the update and COMMIT: the service's pool
   * is in pg's pipeline mode (decision 200).
   */
  async markPublished(messages: readonly PublishedMessage[]): Promise<void> {
    await runPipelinedTransaction(this.dataSource, BEGIN_WITHOUT_WAL_FLUSH, [
      {
        text: this.markPublishedStatement,
        values: [messages.map((m) => m.organizationId), messages.map((m) => m.messageId)],
      },
    ]);
  }

  async countFailedPublish(organizationId: string, messageId: string): Promise<void> {
    await this.dataSource
      .getRepository(this.tables.EventOutbox)
      .increment({ organizationId, messageId }, 'publishAttempts', 1);
  }

  /** The events not yet published, for the metrics: the unpublished-events index answers it. */
  async countUnpublished(): Promise<number> {
    const [row]: { count: number }[] = await this.dataSource.query(
      `SELECT count(*)::int AS "count" FROM ${this.outboxTable} WHERE "published_at" IS NULL`,
    );
    return row.count;
  }

  /**
   * The relay's scan across every organization: it only re-sends stored facts, so it is the one
   * query here not scoped to a tenant; each row keeps its organization for the follow-up updates.
   */
  findUnpublishedOlderThan(before: Date, limit: number): Promise<EventOutboxRow[]> {
    return this.dataSource.getRepository(this.tables.EventOutbox).find({
      where: { publishedAt: IsNull(), createdAt: LessThan(before) },
      order: { createdAt: 'ASC' },
      take: limit,
    });
  }

  /**
   * Deletes up to `limit` published events stored before `before`, oldest first; returns how many.
   * Like the relay's scan it spans every organization: a published event is in JetStream and in
   * billing, and nothing reads it here again.
   */
  async deletePublishedBefore(before: Date, limit: number): Promise<number> {
    const [, deleted]: [unknown, number] = await this.dataSource.query(
      `DELETE FROM ${this.outboxTable} WHERE "message_id" IN (
         SELECT "message_id" FROM ${this.outboxTable}
          WHERE "published_at" IS NOT NULL AND "created_at" < $1
          ORDER BY "created_at" LIMIT $2)`,
      [before, limit],
    );
    return deleted;
  }
}
