import { StartupError } from '../env/load-env';

/**
 * Runs an app's start-up so that every failure ends in one line on stderr saying what failed, and
 * exit code 1. A StartupError is a problem the operator can fix, so its message is the line; any
 * other error is a bug, so its stack is printed first and the line names the app.
 */
export function runMain(app: string, main: () => Promise<void>): void {
  main().catch((err: unknown) => {
    if (!(err instanceof StartupError) && err instanceof Error && err.stack) console.error(err.stack);
    console.error(startupFailureLine(app, err));
    process.exit(1);
  });
}

export function startupFailureLine(app: string, err: unknown): string {
  if (err instanceof StartupError) return err.message;
  const message = err instanceof Error ? err.message : String(err);
  return `${app} failed to start: ${message || 'unknown error'}`;
}

/** Turns a failed listen into a StartupError naming the port and the variable that sets it. */
export function listenFailure(err: unknown, port: number, host: string, variable: string): unknown {
  switch ((err as NodeJS.ErrnoException | undefined)?.code) {
    case 'EADDRINUSE':
      return new StartupError(
        `Port ${port} is already in use: stop the other process or set ${variable} to a free port`,
      );
    case 'EACCES':
      return new StartupError(
        `Port ${port} needs privileges this user lacks: set ${variable} to a port above 1023`,
      );
    case 'EADDRNOTAVAIL':
      return new StartupError(`Cannot listen on ${host}: it is no address of this machine; set HOST to one`);
    case undefined:
    default:
      return err;
  }
}
