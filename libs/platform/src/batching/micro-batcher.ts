/** What a batch answers for one of its items: the item's result, or the error that fails only its caller. */
export type BatchOutcome<Result> = { ok: true; value: Result } | { ok: false; error: unknown };

export interface MicroBatcherOptions<Item, Result> {
  /** A batch starts as soon as this many items wait. */
  maxItems: number;
  /**
   * Or this long after the first waiting item arrived, whichever comes first. 0 starts a batch at
   * once when a slot is free (a plain group commit: an idle system adds no wait, a busy one batches
   * what arrives while its slots are busy).
   */
  maxWaitMs: number;
  /**
   * For callers who wait on the answer. True: an idle batcher does not wait. When no batch is
   * running, the first item waits only for the rest of the current turn of the event loop (what
   * arrives in the same turn joins it); items that arrive while a batch runs gather company until
   * `maxWaitMs` or until that batch ends, whichever comes first.
   * False: every item waits `maxWaitMs` after the first of its batch arrived (or for `maxItems`),
   * however soon a slot frees, so a batch slower than the gap between items does not leave every
   * later batch with a single item.
   */
  startWhenIdle?: boolean;
  /** Batches that may run at the same time; items wait while all are busy. */
  maxInFlight: number;
  /**
   * Runs one batch and answers one outcome per item, in the items' order. Throwing fails the batch:
   * see `MicroBatcher` for who gets the error.
   */
  run(items: readonly Item[]): Promise<BatchOutcome<Result>[]>;
}

interface Waiting<Item, Result> {
  item: Item;
  resolve(result: Result): void;
  reject(error: unknown): void;
}

/**
 * Collects items submitted close together and hands them to `run` as one batch (a group commit):
 * a batch starts when `maxItems` wait, or `maxWaitMs` after the first of them arrived, and a slot of
 * `maxInFlight` is free. Items that arrive while every slot is busy start the next batch as soon as
 * one frees up. Items keep their arrival order within and across batches.
 *
 * Errors: an outcome `{ ok: false }` fails only its own caller. A batch whose `run` throws is split:
 * each of its items runs again alone, in order, in the same slot, so an item that breaks its batch
 * (a poison message, a row that violates a constraint) fails only its own caller, and the others
 * are answered by their own run. A single item whose run throws fails its caller with that error.
 */
export class MicroBatcher<Item, Result> {
  private readonly waiting: Waiting<Item, Result>[] = [];
  private readonly running = new Set<Promise<void>>();
  private cancelWait: (() => void) | null = null;
  private due = false;

  constructor(private readonly options: MicroBatcherOptions<Item, Result>) {
    if (options.maxItems < 1 || options.maxInFlight < 1 || options.maxWaitMs < 0) {
      throw new Error('MicroBatcher needs maxItems ≥ 1, maxInFlight ≥ 1 and maxWaitMs ≥ 0');
    }
  }

  submit(item: Item): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      if (this.options.maxWaitMs === 0) this.due = true;
      else if (this.waiting.length === 1 && this.cancelWait === null) this.waitForCompany();
      this.startBatches();
    });
  }

  /** Resolves once every item submitted so far has been answered. */
  async drain(): Promise<void> {
    while (this.running.size > 0 || this.waiting.length > 0) {
      this.due = true;
      this.startBatches();
      await Promise.all([...this.running]);
    }
  }

  private startBatches(): void {
    while (
      this.running.size < this.options.maxInFlight &&
      this.waiting.length > 0 &&
      (this.due || this.waiting.length >= this.options.maxItems)
    ) {
      const batch = this.waiting.splice(0, this.options.maxItems);
      if (this.waiting.length === 0) this.clearWait();
      const running: Promise<void> = this.answer(batch).finally(() => {
        this.running.delete(running);
        if (this.options.startWhenIdle && this.waiting.length > 0) this.due = true;
        this.startBatches();
      });
      this.running.add(running);
    }
  }

  private waitForCompany(): void {
    const start = () => {
      this.cancelWait = null;
      this.due = true;
      this.startBatches();
    };
    if (this.options.startWhenIdle && this.running.size === 0) {
      const immediate = setImmediate(start);
      this.cancelWait = () => clearImmediate(immediate);
    } else {
      const timer = setTimeout(start, this.options.maxWaitMs);
      this.cancelWait = () => clearTimeout(timer);
    }
  }

  private clearWait(): void {
    this.due = false;
    this.cancelWait?.();
    this.cancelWait = null;
  }

  private async answer(batch: Waiting<Item, Result>[]): Promise<void> {
    let outcomes: BatchOutcome<Result>[];
    try {
      outcomes = await this.runChecked(batch);
    } catch (error) {
      if (batch.length === 1) {
        batch[0].reject(error);
        return;
      }
      for (const waiting of batch) await this.answer([waiting]);
      return;
    }
    batch.forEach((waiting, index) => {
      const outcome = outcomes[index];
      if (outcome.ok) waiting.resolve(outcome.value);
      else waiting.reject(outcome.error);
    });
  }

  private async runChecked(batch: Waiting<Item, Result>[]): Promise<BatchOutcome<Result>[]> {
    const outcomes = await this.options.run(batch.map((waiting) => waiting.item));
    if (outcomes.length !== batch.length) {
      throw new Error(`A batch of ${batch.length} item(s) answered ${outcomes.length} outcome(s)`);
    }
    return outcomes;
  }
}

/**
 * A group commit for writes that callers await one by one: the first write starts at once (or
 * `maxWaitMs` after it arrived, for writes nobody waits on), and the items that arrive while it is
 * in flight are written together by the next.
 */
export function groupCommit<Item>(
  write: (items: readonly Item[]) => Promise<void>,
  { maxItems = 500, maxWaitMs = 0 }: { maxItems?: number; maxWaitMs?: number } = {},
): MicroBatcher<Item, void> {
  return new MicroBatcher<Item, void>({
    maxItems,
    maxWaitMs,
    maxInFlight: 1,
    run: async (items) => {
      await write(items);
      return items.map(() => ({ ok: true, value: undefined }));
    },
  });
}
