import { BeforeApplicationShutdown, Inject, Injectable } from '@nestjs/common';
import { DomainError, type ExtendReservationResponse, type ReserveCreditResponse } from '@gw/contracts';
import { type BatchOutcome, MicroBatcher } from '@gw/platform';
import { BILLING_ENV, BillingEnv } from '../billing.env';
import { spendingWindows } from '../limits/spending-windows';
import {
  apiKeysBesides,
  distinctApiKeys,
  GenerationTaken,
  type HeldReservation,
  type HoldsTransaction,
  keyOf,
  LedgerRepository,
} from './ledger.repository';
import { type ExtendOperation, ReservationBook, type ReserveOperation } from './reservation-book';

/**
 * Every operation the batch applies. Another one is a new member here, a case in `apply`, what it
 * needs read in `readState` and written in `write`.
 */
export type LedgerOperation = ReserveOperation | ExtendOperation;
type LedgerResult = ReserveCreditResponse | ExtendReservationResponse;

/**
 * Reserves and hold extensions in group commits: the operations that arrive within
 * LEDGER_BATCH_MAX_WAIT_MS run in one transaction that locks each account involved once (in id
 * order), decides each operation in arrival order under the rules a reserve alone follows, writes
 * with multi-row statements and commits once, in two round trips where no key of the batch has
 * limits (HoldsTransaction). A refused operation fails only its caller; a batch that breaks is
 * retried one operation at a time (MicroBatcher), so its callers get the answer they would have
 * got alone.
 */
@Injectable()
export class LedgerBatcher implements BeforeApplicationShutdown {
  private readonly batcher: MicroBatcher<LedgerOperation, LedgerResult>;

  constructor(
    private readonly ledger: LedgerRepository,
    @Inject(BILLING_ENV) env: BillingEnv,
  ) {
    this.batcher = new MicroBatcher({
      maxItems: env.LEDGER_BATCH_MAX_ITEMS,
      maxWaitMs: env.LEDGER_BATCH_MAX_WAIT_MS,
      // A chat waits on its reserve: an idle billing starts at once, a busy one gathers company.
      startWhenIdle: true,
      maxInFlight: env.LEDGER_BATCH_MAX_IN_FLIGHT,
      run: (operations) => this.ledger.holdsTransaction((tx) => this.apply(tx, operations)),
    });
  }

  reserve(operation: ReserveOperation): Promise<ReserveCreditResponse> {
    return this.batcher.submit(operation);
  }

  extend(operation: ExtendOperation): Promise<ExtendReservationResponse> {
    return this.batcher.submit(operation) as Promise<ExtendReservationResponse>;
  }

  /** Before the database connections close: every reserve taken is answered, none is cut mid-batch. */
  beforeApplicationShutdown(): Promise<void> {
    return this.batcher.drain();
  }

  private async apply(
    tx: HoldsTransaction,
    operations: readonly LedgerOperation[],
  ): Promise<BatchOutcome<LedgerResult>[]> {
    const book = new ReservationBook(await this.readState(tx, operations));
    const outcomes = operations.map((operation): BatchOutcome<LedgerResult> => {
      try {
        switch (operation.kind) {
          case 'reserve':
            return { ok: true, value: book.reserve(operation) };
          case 'extend':
            return { ok: true, value: book.extend(operation) };
        }
      } catch (error) {
        if (error instanceof DomainError) return { ok: false, error };
        throw error;
      }
    });
    await this.write(tx, book, operations);
    return outcomes;
  }

  private async readState(tx: HoldsTransaction, operations: readonly LedgerOperation[]) {
    const reserves = operations.filter((op): op is ReserveOperation => op.kind === 'reserve');
    const reserveKeys = distinctApiKeys(reserves);
    const { balances, held, existing, limits, running } = await tx.open({
      organizationIds: operations.map((op) => op.organizationId),
      reserves,
      keys: reserveKeys,
      extensions: operations.filter((op): op is ExtendOperation => op.kind === 'extend'),
    });
    // What each operation counts against: a reserve in the windows of now, an extension in those its hold was made in.
    const spenders = [
      ...reserves.map((op) => ({
        organizationId: op.organizationId,
        apiKeyId: op.apiKeyId,
        windows: op.windows,
      })),
      ...running.map((r) => ({
        organizationId: r.organizationId,
        apiKeyId: r.apiKeyId,
        windows: spendingWindows(r.createdAt),
      })),
    ];
    const unread = apiKeysBesides(distinctApiKeys(running), reserveKeys);
    for (const [key, keyLimits] of await tx.limitsOfKeys(unread)) limits.set(key, keyLimits);
    const counterKeys = uniqueBy(
      spenders.flatMap((spender) =>
        spender.apiKeyId !== null && limits.has(keyOf(spender.organizationId, spender.apiKeyId))
          ? spender.windows.map((w) => ({
              organizationId: spender.organizationId,
              apiKeyId: spender.apiKeyId as string,
              period: w.period,
              windowStart: w.start,
            }))
          : [],
      ),
      (key) => `${key.organizationId}/${key.apiKeyId}/${key.period}/${key.windowStart.toISOString()}`,
    );
    return {
      balances,
      held,
      existing,
      limits,
      counters: await tx.counters(counterKeys),
      running: new Map<string, HeldReservation>(running.map((r) => [r.generationId, r])),
    };
  }

  /**
   * A generation id that another organization took meanwhile is not inserted: the batch's later
   * decisions counted that hold, so the batch is undone and its operations run alone, where the
   * one concerned gets the conflict a reserve alone gets.
   */
  private async write(
    tx: HoldsTransaction,
    book: ReservationBook,
    operations: readonly LedgerOperation[],
  ): Promise<void> {
    try {
      await tx.commit({
        reservations: book.reservations,
        growths: book.growths(),
        counterAdditions: book.counterAdditions(),
      });
    } catch (error) {
      if (!(error instanceof GenerationTaken)) throw error;
      if (operations.length > 1) throw new Error('A generation id of the batch was taken meanwhile');
      throw new DomainError(
        'conflict',
        `Generation ${book.reservations[0].generationId} already has a reservation`,
        'generationId',
      );
    }
  }
}

function uniqueBy<T>(items: T[], key: (item: T) => string): T[] {
  return [...new Map(items.map((item) => [key(item), item])).values()];
}
