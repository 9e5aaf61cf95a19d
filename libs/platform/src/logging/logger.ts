import { ConsoleLogger, type LogLevel } from '@nestjs/common';

export type LogFormat = 'json' | 'pretty';

const LEVELS: LogLevel[] = ['fatal', 'error', 'warn', 'log', 'debug', 'verbose'];

/** The levels printed when `level` is the most verbose one wanted. */
export function logLevelsUpTo(level: LogLevel): LogLevel[] {
  return LEVELS.slice(0, LEVELS.indexOf(level) + 1);
}

/** One logger setup for every app: JSON lines in the distributed mode, readable lines when embedded. */
export function createLogger(appName: string, format: LogFormat, level: LogLevel = 'log'): ConsoleLogger {
  return new ConsoleLogger(appName, {
    json: format === 'json',
    colors: format === 'pretty' && process.stdout.isTTY,
    logLevels: logLevelsUpTo(level),
    prefix: 'gateway',
  });
}
