/** Well under Prometheus's default 10 s scrape timeout, so a slow read costs a scrape its gauge, not the scrape. */
export const SCRAPE_READ_TIMEOUT_MS = 2_000;

/**
 * A figure read at scrape time (a small query): the gauges of one scrape share one read, and a read
 * still running is joined rather than repeated, so a database that stopped answering holds at most
 * one connection for it however often Prometheus scrapes. A caller waits at most `timeoutMs` and
 * gets null for a read that failed or is late.
 */
export class ScrapeReading<Value> {
  private running: Promise<Value> | null = null;

  constructor(
    private readonly read: () => Promise<Value>,
    private readonly timeoutMs = SCRAPE_READ_TIMEOUT_MS,
  ) {}

  async take(): Promise<Value | null> {
    if (!this.running) {
      const running = this.read();
      this.running = running;
      const done = () => {
        if (this.running === running) this.running = null;
      };
      running.then(done, done);
    }
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), this.timeoutMs);
    });
    try {
      return await Promise.race([this.running.catch(() => null), late]);
    } finally {
      clearTimeout(timer);
    }
  }
}
