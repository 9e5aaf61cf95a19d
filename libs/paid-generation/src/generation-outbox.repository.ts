import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, IsNull, LessThan } from 'typeorm';
import type { EventOutboxRow, NewAttempt, PaidGenerationTables } from './paid-generation-tables';

export const PAID_GENERATION_TABLES = Symbol('PAID_GENERATION_TABLES');

export interface OutboxMessage {
  messageId: string;
  subject: string;
  payload: unknown;
}

@Injectable()
export class GenerationOutboxRepository {
  private readonly attemptsTable: string;
  private readonly outboxTable: string;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(PAID_GENERATION_TABLES) private readonly tables: PaidGenerationTables,
  ) {
    // The schema is the service's own constant, never input: quoting it is enough to place it in SQL.
    this.attemptsTable = `"${tables.schema}"."request_attempts"`;
    this.outboxTable = `"${tables.schema}"."event_outbox"`;
  }

  /**
   * The attempts and the event that reports them commit together, so neither exists without the
   * other. One statement does both: it is atomic on its own and costs one round trip instead of a
   * four-step transaction on the path that answers the client.
   */
  async saveFinished(
    organizationId: string,
    generationId: string,
    attempts: NewAttempt[],
    event: OutboxMessage,
  ): Promise<void> {
    await this.dataSource.query(
      `WITH "attempts" AS (
         INSERT INTO ${this.attemptsTable}
           ("generation_id", "organization_id", "attempt", "provider", "status", "error_code", "error_message",
            "http_status", "started_at", "duration_ms")
         SELECT $1, $2, a."attempt", a."provider", a."status", a."errorCode", a."errorMessage", a."httpStatus",
                a."startedAt", a."durationMs"
           FROM jsonb_to_recordset($3::jsonb) AS a(
             "attempt" integer, "provider" text, "status" text, "errorCode" text, "errorMessage" text,
             "httpStatus" integer, "startedAt" timestamptz, "durationMs" integer)
       )
       INSERT INTO ${this.outboxTable} ("message_id", "organization_id", "subject", "payload")
       VALUES ($4, $2, $5, $6::jsonb)`,
      [
        generationId,
        organizationId,
        JSON.stringify(attempts),
        event.messageId,
        event.subject,
        JSON.stringify(event.payload),
      ],
    );
  }

  async markPublished(organizationId: string, messageId: string): Promise<void> {
    await this.dataSource
      .getRepository(this.tables.EventOutbox)
      .update({ organizationId, messageId, publishedAt: IsNull() }, { publishedAt: new Date() });
  }

  async countFailedPublish(organizationId: string, messageId: string): Promise<void> {
    await this.dataSource
      .getRepository(this.tables.EventOutbox)
      .increment({ organizationId, messageId }, 'publishAttempts', 1);
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
}
