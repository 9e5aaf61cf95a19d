import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
  Optional,
} from '@nestjs/common';
import {
  GenerationBilling,
  type GenerationContext,
  type GenerationHold,
  type GenerationOutcome,
  ReservationLeases,
} from '@gw/paid-generation';
import { AppMetrics, PeriodicTask } from '@gw/platform';
import Decimal from 'decimal.js';
import type { Counter } from 'prom-client';
import type { MediaGenerationEntity } from '../generations/media-generation.entity';
import { MediaGenerationRepository } from '../generations/media-generation.repository';

export const MEDIA_HOLD_SETTINGS = Symbol('MEDIA_HOLD_SETTINGS');

export interface MediaHoldSettings {
  /** How often the holds of unfinished generations are looked over (as often as their leases are renewed). */
  keepIntervalMs: number;
  /** How long a final generation's outcome is left to the runner that ended it before the keeper reports it. */
  settleGraceMs: number;
}

const KEEP_BATCH = 5_000;

/** The hold context of a stored generation: it is the same on whichever replica picks the job up. */
export function holdContext(row: MediaGenerationEntity): GenerationContext {
  return {
    generationId: row.id,
    principal: row.principal,
    model: row.model,
    modelDisplayName: row.modelDisplayName,
    requestType: row.requestType,
    apiType: 'media',
    responseMode: row.responseMode,
    startedAt: row.createdAt,
  };
}

/** How a final generation is reported to billing: only a completed one costs anything. */
export function outcomeOf(row: MediaGenerationEntity): GenerationOutcome {
  return {
    status: row.status === 'completed' ? 'completed' : row.status === 'cancelled' ? 'cancelled' : 'failed',
    provider: row.provider,
    finishReason: null,
    usage: null,
    cost: row.status === 'completed' ? new Decimal(row.cost ?? 0) : new Decimal(0),
    error: row.status === 'failed' ? row.error : null,
  };
}

/**
 * The money of media generations, through their GenerationHolds: opened at creation, kept for as
 * long as the job lives, finished once when it ends. Jobs outlive processes, so every replica keeps
 * the hold of every unfinished generation (renewing a lease twice costs nothing, letting one lapse
 * would release money a running job still needs), and reports any outcome that the runner which
 * ended the job did not get to report (it died in between). Those late reports are counted in
 * `gw_media_holds_reported_total{status}`: a completed one charges its hold, a failed or cancelled
 * one releases it.
 */
@Injectable()
export class MediaHolds implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('MediaHolds');
  private readonly holds = new Map<string, GenerationHold>();
  private readonly task: PeriodicTask;
  private readonly reported: Counter<'status'> | null;

  constructor(
    private readonly billing: GenerationBilling,
    private readonly leases: ReservationLeases,
    private readonly generations: MediaGenerationRepository,
    @Inject(MEDIA_HOLD_SETTINGS) private readonly settings: MediaHoldSettings,
    @Optional() metrics?: AppMetrics,
  ) {
    this.reported =
      metrics?.counter({
        name: 'gw_media_holds_reported_total',
        help: 'Ended generations whose outcome the hold keeper reported because their runner did not (it died), by status (completed: charged; failed, cancelled: released)',
        labelNames: ['status'],
      }) ?? null;
    this.task = new PeriodicTask('Media hold keeper', settings.keepIntervalMs, () => this.keep());
  }

  onApplicationBootstrap(): void {
    this.task.start({ runNow: true });
  }

  onApplicationShutdown(): Promise<void> {
    return this.task.stop();
  }

  /** Reserves the exact price of a new generation; a refusal (402) passes through with nothing held. */
  async open(context: GenerationContext, price: Decimal): Promise<GenerationHold> {
    const hold = await this.billing.open(context, { maxAmount: price, minAmount: price });
    this.holds.set(context.generationId, hold);
    return hold;
  }

  /** Reports a final generation's outcome once, charging at most what is held, and forgets its hold. */
  async settle(row: MediaGenerationEntity): Promise<void> {
    await this.holdOf(row).finish(outcomeOf(row));
    await this.generations.markSettled(row.id);
    this.holds.delete(row.id);
  }

  /** This replica's hold of a generation, resumed (never reserved again) when another opened it. */
  private holdOf(row: MediaGenerationEntity): GenerationHold {
    let hold = this.holds.get(row.id);
    if (!hold) {
      hold = this.billing.resume(holdContext(row), new Decimal(row.reserved));
      this.holds.set(row.id, hold);
    }
    return hold;
  }

  private async keep(): Promise<void> {
    const rows = await this.generations.unsettled(KEEP_BATCH);
    const unsettled = new Set(rows.map((row) => row.id));
    for (const id of this.holds.keys()) {
      // Settled by another replica: its lease is no longer this one's to renew.
      if (!unsettled.has(id)) {
        this.leases.drop(id);
        this.holds.delete(id);
      }
    }
    const graceEnd = Date.now() - this.settings.settleGraceMs;
    for (const row of rows) {
      // Renewed until billing is told, final or not: a lapsed hold would be released before its charge.
      this.holdOf(row);
      if (row.completedAt !== null && row.completedAt.getTime() < graceEnd) {
        this.logger.warn(`Reporting generation ${row.id}, left ${row.status} without its outcome`);
        await this.settle(row);
        this.reported?.inc({ status: outcomeOf(row).status });
      }
    }
  }
}
