import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { PeriodicTask } from '@gw/platform';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { MediaGenerationEntity } from '../generations/media-generation.entity';
import { GenerationEndings } from '../generations/generation-endings';
import { MediaGenerationRepository } from '../generations/media-generation.repository';
import { MediaHolds } from '../money/media-holds.service';
import { mediaUsage } from '../pricing/media-price';
import { JOB_ERRORS, type JobError } from './job-failure';
import { type JobStep, MediaJobExecutor } from './media-job.executor';

export const MEDIA_JOB_RUNNER_SETTINGS = Symbol('MEDIA_JOB_RUNNER_SETTINGS');

/** The least a runner waits between two claims unless a job is created here: a poll is that much late at most. */
const CLAIM_GATHER_MS = 100;

export interface JobRunnerSettings {
  /** Job steps this replica runs at once. */
  concurrency: number;
  /** How long a claimed job stays this runner's without a renewal; it is renewed at a third of it. */
  leaseMs: number;
  /** The longest this runner sleeps without looking for due jobs (another replica may have created some). */
  idlePollMs: number;
}

/**
 * Runs the media jobs stored in Postgres: claims due ones in batches (FOR UPDATE SKIP LOCKED, so
 * replicas never share a job), runs at most `concurrency` steps at once, keeps their leases alive,
 * and between claims sleeps until the next job is due (or a job is created here). A job outlives
 * this process: its lease lapses and any replica takes it up where it was left.
 */
@Injectable()
export class MediaJobRunner implements OnApplicationBootstrap, OnApplicationShutdown {
  readonly owner = `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;
  private readonly logger = new Logger('MediaJobRunner');
  private readonly running = new Map<string, Promise<void>>();
  private readonly renewal: PeriodicTask;
  private active = false;
  private loop: Promise<void> | null = null;
  private wakeUp: (() => void) | null = null;

  constructor(
    private readonly generations: MediaGenerationRepository,
    private readonly executor: MediaJobExecutor,
    private readonly holds: MediaHolds,
    private readonly endings: GenerationEndings,
    @Inject(MEDIA_JOB_RUNNER_SETTINGS) private readonly settings: JobRunnerSettings,
  ) {
    this.renewal = new PeriodicTask('Media job leases', Math.max(50, Math.floor(settings.leaseMs / 3)), () =>
      this.generations.renewLeases(this.owner, [...this.running.keys()], settings.leaseMs),
    );
  }

  onApplicationBootstrap(): void {
    this.active = true;
    this.renewal.start();
    this.loop = this.run();
  }

  /** Stops claiming and lets the steps in flight end (each is bounded by the provider timeout). */
  async onApplicationShutdown(): Promise<void> {
    this.active = false;
    this.wake();
    await this.loop;
    await Promise.allSettled(this.running.values());
    await this.renewal.stop();
  }

  /** A job was created or freed a slot here: look for due jobs now rather than at the next tick. */
  wake(): void {
    this.wakeUp?.();
  }

  private async run(): Promise<void> {
    while (this.active) {
      let claimed: MediaGenerationEntity[] = [];
      const free = this.settings.concurrency - this.running.size;
      try {
        if (free > 0) {
          claimed = await this.generations.claimDue(this.owner, free, this.settings.leaseMs, [
            ...this.running.keys(),
          ]);
          for (const job of claimed) this.start(job);
        }
        if (claimed.length > 0 && claimed.length === free) continue;
        await this.sleep(free > 0 ? await this.untilNextDue() : this.settings.idlePollMs);
      } catch (err) {
        this.logger.warn(`Claiming media jobs failed, retrying: ${(err as Error).message}`);
        await this.sleep(this.settings.idlePollMs);
      }
    }
  }

  private async untilNextDue(): Promise<number> {
    const next = await this.generations.nextDueAt(this.owner);
    const wait = next === null ? this.settings.idlePollMs : next.getTime() - Date.now();
    // Jobs due within a moment of each other are claimed together: one claim for many polls.
    return Math.min(this.settings.idlePollMs, Math.max(CLAIM_GATHER_MS, wait));
  }

  private sleep(ms: number): Promise<void> {
    if (!this.active) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wakeUp = () => {
        this.wakeUp = null;
        done();
      };
    });
  }

  private start(job: MediaGenerationEntity): void {
    const running = this.runStep(job)
      .catch((err: unknown) =>
        this.logger.error(
          `Media job ${job.id} step failed, left for its lease to lapse: ${(err as Error).message}`,
        ),
      )
      .finally(() => {
        // A freed slot matters to a runner that had none; otherwise it already sleeps until the next due job.
        const wasFull = this.running.size >= this.settings.concurrency;
        this.running.delete(job.id);
        if (wasFull) this.wake();
      });
    this.running.set(job.id, running);
  }

  private async runStep(job: MediaGenerationEntity): Promise<void> {
    if (job.deadlineAt.getTime() <= Date.now()) return this.fail(job, JOB_ERRORS.deadline);
    const markSubmitted = () => this.generations.saveStep(job.id, this.owner, { submittedAt: () => 'now()' });
    const step = await this.executor.step(job, markSubmitted);
    if (step !== null) await this.record(job, step);
  }

  private async record(job: MediaGenerationEntity, step: JobStep): Promise<void> {
    switch (step.kind) {
      case 'failed':
        return this.fail(job, step.error);
      case 'completed': {
        const ended = await this.generations.finish(job.id, this.owner, {
          status: 'completed',
          cost: job.price,
          usage: mediaUsage(job.requestType, job.params, job.price, step.tokens),
          files: step.files,
          error: null,
        });
        if (ended) await this.ended(ended);
        return;
      }
      case 'wait': {
        const dueAt = Math.min(Date.now() + step.delayMs, job.deadlineAt.getTime());
        await this.generations.saveStep(job.id, this.owner, {
          ...step.changes,
          nextRunAt: new Date(dueAt),
          // The owner's own until it is due and a lease past that: a runner that died leaves it to others then.
          leaseUntil: new Date(dueAt + this.settings.leaseMs),
        });
      }
    }
  }

  private async fail(job: MediaGenerationEntity, error: JobError): Promise<void> {
    const ended = await this.generations.finish(job.id, this.owner, {
      status: 'failed',
      cost: '0',
      error,
    });
    if (ended) await this.ended(ended);
  }

  /** Reports the outcome to billing and to the waits on this replica. */
  private async ended(row: MediaGenerationEntity): Promise<void> {
    this.endings.ended(row.id);
    await this.holds.settle(row);
  }
}
