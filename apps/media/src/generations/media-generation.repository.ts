import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { MediaGenerationStatus } from '@gw/contracts';
import { In, IsNull, Repository } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { MediaGenerationEntity } from './media-generation.entity';

/** What a job step may change of its row. */
export type JobChanges = QueryDeepPartialEntity<MediaGenerationEntity>;

/** A final status and what goes with it. */
export interface FinalChanges {
  status: Extract<MediaGenerationStatus, 'completed' | 'failed' | 'cancelled'>;
  cost: string;
  usage?: JobChanges['usage'];
  files?: JobChanges['files'];
  error?: { code: string; message: string } | null;
  provider?: string | null;
}

const UNFINISHED: MediaGenerationStatus[] = ['pending', 'processing'];

/**
 * The generations and their jobs. Reads by a client name the organization (another tenant's id
 * reads as unknown); the job statements name the runner (`owner`) that holds the lease, so a runner
 * that lost its lease (it was too slow and another took the job over) changes nothing.
 */
@Injectable()
export class MediaGenerationRepository {
  constructor(
    @InjectRepository(MediaGenerationEntity) private readonly rows: Repository<MediaGenerationEntity>,
  ) {}

  findOne(organizationId: string, id: string): Promise<MediaGenerationEntity | null> {
    return this.rows.findOne({ where: { organizationId, id } });
  }

  async insert(row: Partial<MediaGenerationEntity>): Promise<MediaGenerationEntity> {
    await this.rows.insert(row as QueryDeepPartialEntity<MediaGenerationEntity>);
    return this.rows.findOneOrFail({ where: { id: row.id } });
  }

  /**
   * Claims up to `limit` due jobs for `owner`, leased for `leaseMs`: a job is due at its
   * `next_run_at`, and a leased one only for its owner until the lease ends (the owner's affinity
   * while it waits to poll again); a runner that died leaves its jobs to anyone once it does. While
   * claimed, a job is not due again before its lease ends, which its runner keeps pushing on.
   */
  async claimDue(
    owner: string,
    limit: number,
    leaseMs: number,
    running: string[],
  ): Promise<MediaGenerationEntity[]> {
    // An UPDATE answers its rows and how many it changed.
    const [claimed]: [Array<{ id: string }>, number] = await this.rows.query(
      `WITH due AS (
         SELECT id FROM media.generations
          WHERE next_run_at <= now()
            AND (lease_owner = $1 OR lease_until IS NULL OR lease_until <= now())
            AND NOT (id = ANY($4::text[]))
          ORDER BY next_run_at
          LIMIT $3
          FOR UPDATE SKIP LOCKED)
       UPDATE media.generations g
          SET lease_owner = $1,
              lease_until = now() + $2 * interval '1 millisecond',
              next_run_at = now() + $2 * interval '1 millisecond',
              status = 'processing',
              started_at = COALESCE(g.started_at, now())
         FROM due WHERE g.id = due.id
       RETURNING g.id`,
      [owner, leaseMs, limit, running],
    );
    if (claimed.length === 0) return [];
    return this.rows.find({ where: { id: In(claimed.map((row) => row.id)) } });
  }

  /** When this runner may next find a job due: the earliest due time it could claim. */
  async nextDueAt(owner: string): Promise<Date | null> {
    const [row]: Array<{ at: Date | null }> = await this.rows.query(
      `SELECT min(CASE WHEN lease_owner = $1 THEN next_run_at ELSE GREATEST(next_run_at, lease_until) END) AS at
         FROM media.generations WHERE next_run_at IS NOT NULL`,
      [owner],
    );
    return row?.at ?? null;
  }

  /** Pushes on the leases of the jobs this runner is working on. */
  async renewLeases(owner: string, ids: string[], leaseMs: number): Promise<void> {
    if (ids.length === 0) return;
    await this.rows.query(
      `UPDATE media.generations
          SET lease_until = now() + $2 * interval '1 millisecond',
              next_run_at = now() + $2 * interval '1 millisecond'
        WHERE id = ANY($3::text[]) AND lease_owner = $1 AND next_run_at IS NOT NULL`,
      [owner, leaseMs, ids],
    );
  }

  /** Records a step of a job this runner holds; false when it no longer does (cancelled, or taken over). */
  async saveStep(id: string, owner: string, changes: JobChanges): Promise<boolean> {
    const result = await this.rows
      .createQueryBuilder()
      .update()
      .set(changes)
      .where({ id, leaseOwner: owner, status: 'processing' })
      .execute();
    return (result.affected ?? 0) > 0;
  }

  /**
   * Ends a job this runner holds (or, for a cancel, any unfinished one: `owner` null); false when it
   * had ended already. The one transition that wins decides the outcome billing is told.
   */
  async finish(
    id: string,
    owner: string | null,
    changes: FinalChanges,
  ): Promise<MediaGenerationEntity | null> {
    const where =
      owner === null ? { id, status: In(UNFINISHED) } : { id, leaseOwner: owner, status: In(UNFINISHED) };
    const result = await this.rows
      .createQueryBuilder()
      .update()
      .set({
        ...changes,
        completedAt: () => 'now()',
        nextRunAt: null,
        leaseUntil: null,
      })
      .where(where)
      .returning('id')
      .execute();
    if ((result.affected ?? 0) === 0) return null;
    return this.rows.findOneOrFail({ where: { id } });
  }

  async markSettled(id: string): Promise<void> {
    await this.rows.update({ id, settledAt: IsNull() }, { settledAt: () => 'now()' });
  }

  /** How many generations billing has not been told the end of, by status (the unsettled index answers it). */
  async countUnsettledByStatus(): Promise<Map<string, number>> {
    const rows: Array<{ status: string; count: number }> = await this.rows.query(
      `SELECT status, count(*)::int AS count FROM media.generations WHERE settled_at IS NULL GROUP BY status`,
    );
    return new Map(rows.map((row) => [row.status, row.count]));
  }

  /** The generations whose outcome billing has not been told yet, oldest first. */
  unsettled(limit: number): Promise<MediaGenerationEntity[]> {
    return this.rows.find({ where: { settledAt: IsNull() }, order: { createdAt: 'ASC' }, take: limit });
  }
}
