import { type ConsoleLogger, type LogLevel } from '@nestjs/common';
import { logLevelsUpTo, RedactingConsoleLogger } from '@gw/platform';

/**
 * The embedded mode runs each service as its own Nest application in one process. Each has its own
 * container and DataSource, but @nestjs/typeorm keeps a process-wide registry of DataSource names
 * and warns that the default name repeats — true of the process, harmless here, and alarming in
 * the demo's output. This logger leaves out that one warning; everything else is printed.
 */
class EmbeddedLogger extends RedactingConsoleLogger {
  override warn(message: unknown, ...rest: unknown[]): void {
    if (rest.at(-1) === 'DataSourceNameRegistry') return;
    super.warn(message, ...(rest as [string?]));
  }
}

export function createEmbeddedLogger(name: string, level: LogLevel): ConsoleLogger {
  return new EmbeddedLogger(name, {
    colors: process.stdout.isTTY,
    logLevels: logLevelsUpTo(level),
    prefix: 'gateway',
  });
}
