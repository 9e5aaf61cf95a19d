import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
  Optional,
} from '@nestjs/common';
import { AppMetrics, PeriodicTask } from '@gw/platform';
import type { Counter } from 'prom-client';
import { BLOB_STORE, type BlobStore } from '@gw/platform/blobs';
import { STORAGE_SETTINGS, type StorageSettings } from './storage-settings';
import { StoredFileRepository, type SweptFile } from './stored-file.repository';

const BATCH = 100;
/** How long a claimed record is this sweeper's; a crashed sweeper's records return after it. */
const SWEEP_LEASE_MS = 60_000;

/** What one sweep removed, by reason. */
export type SweepReport = Record<SweptFile['reason'], number>;

/**
 * Removes expired temporary files, uploads abandoned half-way and deletions left unfinished by a
 * crash: object first, then record. Each replica claims its own records (SKIP LOCKED plus a lease),
 * so none is removed twice and none is lost when a replica dies mid-sweep.
 */
@Injectable()
export class StoredFileSweeper implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('StoredFileSweeper');
  private readonly task: PeriodicTask;
  private readonly removed: Counter<'reason'> | null;

  constructor(
    private readonly files: StoredFileRepository,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    @Inject(STORAGE_SETTINGS) private readonly settings: StorageSettings,
    @Optional() metrics?: AppMetrics,
  ) {
    this.removed =
      metrics?.counter({
        name: 'gw_storage_swept_files_total',
        help: 'Files the sweeper removed, by reason (expired, abandoned_upload, unfinished_delete)',
        labelNames: ['reason'],
      }) ?? null;
    this.task = new PeriodicTask('storage sweep', settings.sweepIntervalMs, () => this.sweep());
  }

  onApplicationBootstrap(): void {
    this.task.start({ runNow: true });
  }

  onModuleDestroy(): Promise<void> {
    return this.task.stop();
  }

  async sweep(): Promise<SweepReport> {
    const report: SweepReport = { expired: 0, abandoned_upload: 0, unfinished_delete: 0 };
    for (;;) {
      const batch = await this.files.claimSweepable(BATCH, this.settings.pendingUploadTtlMs, SWEEP_LEASE_MS);
      for (const file of batch) {
        await this.blobs.delete(file.objectKey);
        await this.files.remove(file.id);
        report[file.reason] += 1;
        this.removed?.inc({ reason: file.reason });
      }
      if (batch.length < BATCH) break;
    }
    const removed = report.expired + report.abandoned_upload + report.unfinished_delete;
    if (removed > 0)
      this.logger.log(
        `Removed ${removed} files: ${report.expired} expired, ${report.abandoned_upload} abandoned uploads, ${report.unfinished_delete} unfinished deletions`,
      );
    return report;
  }
}
