import { Logger } from '@nestjs/common';

export interface PeriodicRun {
  /** The run `start({ runNow: true })` makes at once, before the first interval has passed. */
  first: boolean;
}

/**
 * Background work repeated every `intervalMs` (outbox relays, expiry sweeps): a run still going
 * when the next is due is not doubled, a failing run is logged and retried at the next tick
 * instead of crashing the process, and the timer never keeps the process alive on its own.
 */
export class PeriodicTask {
  private readonly logger: Logger;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;

  constructor(
    private readonly name: string,
    private readonly intervalMs: number,
    private readonly work: (run: PeriodicRun) => Promise<unknown>,
  ) {
    this.logger = new Logger(name);
  }

  /** False once stopped: long work checks it between steps so a shutdown need not wait for a whole batch. */
  get active(): boolean {
    return this.timer !== null;
  }

  start(options: { runNow?: boolean } = {}): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.run({ first: false }), this.intervalMs);
    this.timer.unref();
    if (options.runNow) this.run({ first: true });
  }

  /** Stops the timer and waits for a run in progress; call it from the owner's shutdown hook. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  private run(run: PeriodicRun): void {
    this.running ??= this.work(run)
      .then(
        () => undefined,
        (err: unknown) =>
          this.logger.warn(`${this.name} failed, retrying at the next tick: ${(err as Error).message}`),
      )
      .finally(() => (this.running = null));
  }
}
