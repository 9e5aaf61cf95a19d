/**
 * Counts the pieces of work an app has begun and not finished (requests, streams, handlers), so a
 * shutdown can wait for them: `idle` resolves once none is left, or tells that the bound passed.
 */
export class WorkInFlight {
  private running = 0;
  private waiters: Array<() => void> = [];

  get size(): number {
    return this.running;
  }

  /** Marks one piece of work begun; the function returned marks it finished (a second call does nothing). */
  begin(): () => void {
    this.running++;
    let finished = false;
    return () => {
      if (finished) return;
      finished = true;
      if (--this.running === 0) this.wakeWaiters();
    };
  }

  /** True once no work is left, false when `timeoutMs` passed first. */
  idle(timeoutMs: number): Promise<boolean> {
    if (this.running === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((waiter) => waiter !== done);
        resolve(false);
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        resolve(true);
      };
      this.waiters.push(done);
    });
  }

  private wakeWaiters(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const waiter of waiters) waiter();
  }
}
