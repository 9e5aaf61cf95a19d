/** What closing takes beyond the grace for work in flight: NATS draining, pools and files closing. */
const CLOSING_MS = 15_000;

/**
 * Runs `stop` on the first SIGTERM or SIGINT. A second signal ends the process at once, for an
 * operator who will not wait for the work in flight, and so does a stop that outlasts
 * `graceMs` by more than closing takes (a NATS that is away never finishes draining).
 */
export function onShutdownSignal(graceMs: number, stop: (signal: string) => Promise<void>): void {
  let stopping = false;
  const handle = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(1);
    stopping = true;
    setTimeout(() => {
      console.error(`Still stopping ${graceMs + CLOSING_MS} ms after ${signal}: exiting`);
      process.exit(1);
    }, graceMs + CLOSING_MS).unref();
    void stop(signal).catch((err: unknown) => {
      console.error(`Stopping after ${signal} failed: ${(err as Error).message}`);
      process.exit(1);
    });
  };
  process.on('SIGTERM', handle);
  process.on('SIGINT', handle);
}
