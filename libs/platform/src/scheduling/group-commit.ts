interface Waiting<T> {
  item: T;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/**
 * Group commit for writes that callers await one by one: the first write goes out at once, and the
 * writes that arrive while it is in flight are written together by the next call of `write`. So an
 * idle system pays no added latency, and a busy one pays one round trip (one commit, one fsync) for
 * many callers instead of one each. A batch that fails is written again item by item, so that one
 * bad item (a duplicate key, say) fails its own caller only.
 */
export class GroupCommit<T> {
  private queue: Waiting<T>[] = [];
  private flushing: Promise<void> | null = null;

  constructor(
    private readonly write: (items: T[]) => Promise<void>,
    private readonly maxBatch = 500,
  ) {}

  /** Resolves once `item` has been written (committed) with its batch. */
  add(item: T): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.flushing ??= this.drain().finally(() => (this.flushing = null));
    });
  }

  /** Resolves when everything added so far has been written (or has failed). */
  async idle(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.maxBatch);
      try {
        await this.write(batch.map((waiting) => waiting.item));
        batch.forEach((waiting) => waiting.resolve());
      } catch (err) {
        if (batch.length === 1) batch[0].reject(err);
        else for (const waiting of batch) await this.writeAlone(waiting);
      }
    }
  }

  private async writeAlone(waiting: Waiting<T>): Promise<void> {
    try {
      await this.write([waiting.item]);
      waiting.resolve();
    } catch (err) {
      waiting.reject(err);
    }
  }
}
