import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, IsNull, LessThan } from 'typeorm';
import { EventOutboxEntity } from './event-outbox.entity';
import { RequestAttemptEntity } from './request-attempt.entity';

export type NewAttempt = Omit<RequestAttemptEntity, 'id' | 'generationId' | 'organizationId'>;

export interface OutboxMessage {
  messageId: string;
  subject: string;
  payload: unknown;
}

@Injectable()
export class GenerationOutboxRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The attempts and the event that reports them commit together, so neither exists without the other. */
  async saveFinished(organizationId: string, generationId: string, attempts: NewAttempt[], event: OutboxMessage): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      if (attempts.length > 0) {
        await manager.insert(
          RequestAttemptEntity,
          attempts.map((attempt) => ({ ...attempt, generationId, organizationId })),
        );
      }
      await manager.insert(EventOutboxEntity, { ...event, organizationId, payload: event.payload as object });
    });
  }

  async markPublished(organizationId: string, messageId: string): Promise<void> {
    await this.dataSource
      .getRepository(EventOutboxEntity)
      .update({ organizationId, messageId, publishedAt: IsNull() }, { publishedAt: new Date() });
  }

  async countFailedPublish(organizationId: string, messageId: string): Promise<void> {
    await this.dataSource.getRepository(EventOutboxEntity).increment({ organizationId, messageId }, 'publishAttempts', 1);
  }

  /**
   * The relay's scan across every organization: it only re-sends stored facts, so it is the one
   * query here not scoped to a tenant; each row keeps its organization for the follow-up updates.
   */
  findUnpublishedOlderThan(before: Date, limit: number): Promise<EventOutboxEntity[]> {
    return this.dataSource.getRepository(EventOutboxEntity).find({
      where: { publishedAt: IsNull(), createdAt: LessThan(before) },
      order: { createdAt: 'ASC' },
      take: limit,
    });
  }

  findAttempts(organizationId: string, generationId: string): Promise<RequestAttemptEntity[]> {
    return this.dataSource.getRepository(RequestAttemptEntity).find({ where: { organizationId, generationId }, order: { attempt: 'ASC' } });
  }
}
