import { ConsoleLogger, type LoggerService, type LogLevel } from '@nestjs/common';
import pino, { type Logger as Pino } from 'pino';
import { currentRequestId } from '../observability/request-id';
import { currentTraceIds } from '../observability/tracing';
import { redactSecrets } from '../observability/redaction';

export type LogFormat = 'json' | 'pretty';

const LEVELS: LogLevel[] = ['fatal', 'error', 'warn', 'log', 'debug', 'verbose'];

/** Nest's level names in pino's. */
const PINO_LEVELS: Record<LogLevel, pino.Level> = {
  fatal: 'fatal',
  error: 'error',
  warn: 'warn',
  log: 'info',
  debug: 'debug',
  verbose: 'trace',
};

/** The levels printed when `level` is the most verbose one wanted. */
export function logLevelsUpTo(level: LogLevel): LogLevel[] {
  return LEVELS.slice(0, LEVELS.indexOf(level) + 1);
}

/** One logger setup for every app: JSON lines in the distributed mode, readable lines when embedded. */
export function createLogger(appName: string, format: LogFormat, level: LogLevel = 'log'): LoggerService {
  if (format === 'json') return new JsonLogger(appName, level);
  return new RedactingConsoleLogger(appName, {
    colors: process.stdout.isTTY,
    logLevels: logLevelsUpTo(level),
    prefix: 'gateway',
  });
}

/**
 * Readable lines, with secrets redacted, the request id, when there is one, before the text, and a
 * message that is an object of fields (the access log) on one line as `name=value` pairs.
 */
export class RedactingConsoleLogger extends ConsoleLogger {
  protected override formatMessage(...args: Parameters<ConsoleLogger['formatMessage']>): string {
    const [logLevel, message, ...rest] = args;
    const requestId = currentRequestId();
    const text = redactSecrets(isFields(message) ? fieldsAsText(message) : String(message));
    return super.formatMessage(logLevel, requestId ? `[${requestId}] ${text}` : text, ...rest);
  }
}

function isFields(message: unknown): message is Record<string, unknown> {
  return message !== null && typeof message === 'object' && !(message instanceof Error);
}

function fieldsAsText({ message, ...fields }: Record<string, unknown>): string {
  const pairs = Object.entries(fields).map(([name, value]) => `${name}=${String(value)}`);
  return [typeof message === 'string' ? message : '', ...pairs].join(' ');
}

/**
 * JSON lines by pino: `service`, `level`, `context`, `message` and, inside a request, its
 * `requestId` (and its `traceId` and `spanId` while tracing is on). A message's text is scrubbed of secrets (redactSecrets); fields by the names that
 * hold secrets are redacted by pino. Lines are written synchronously, as Nest's own logger did, so
 * none is lost when the process exits right after one.
 */
export class JsonLogger implements LoggerService {
  private readonly pino: Pino;

  constructor(service: string, level: LogLevel) {
    this.pino = pino(
      {
        level: PINO_LEVELS[level],
        base: { service, pid: process.pid },
        messageKey: 'message',
        formatters: { level: (label) => ({ level: label }) },
        // A new object each line: pino merges the line's own fields into it.
        mixin: () => {
          const requestId = currentRequestId();
          const trace = currentTraceIds();
          return { ...(requestId ? { requestId } : {}), ...trace };
        },
        redact: {
          paths: ['password', 'authorization', 'apiKey', 'token', 'secret', '*.password', '*.authorization'],
          censor: '[redacted]',
        },
      },
      pino.destination({ dest: 1, sync: true }),
    );
  }

  log(message: unknown, ...params: unknown[]): void {
    this.write('info', message, params);
  }

  warn(message: unknown, ...params: unknown[]): void {
    this.write('warn', message, params);
  }

  debug(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, params);
  }

  verbose(message: unknown, ...params: unknown[]): void {
    this.write('trace', message, params);
  }

  fatal(message: unknown, ...params: unknown[]): void {
    this.write('fatal', message, params);
  }

  /** Nest passes `(message, stack?, context?)`. */
  error(message: unknown, ...params: unknown[]): void {
    const [stack, context] = params.length >= 2 ? params : [undefined, params[0]];
    const fields: Record<string, unknown> = { context };
    if (typeof stack === 'string') fields['stack'] = redactSecrets(stack);
    if (message instanceof Error) {
      fields['stack'] = redactSecrets(message.stack ?? '');
      this.pino.error(fields, redactSecrets(message.message));
      return;
    }
    this.emit('error', message, fields);
  }

  setLogLevels(levels: LogLevel[]): void {
    const mostVerbose = LEVELS.filter((level) => levels.includes(level)).at(-1);
    if (mostVerbose) this.pino.level = PINO_LEVELS[mostVerbose];
  }

  /** Nest passes the context last; a message that is an object is written as fields. */
  private write(level: pino.Level, message: unknown, params: unknown[]): void {
    if (!this.pino.isLevelEnabled(level)) return;
    this.emit(level, message, { context: params.at(-1) });
  }

  private emit(level: pino.Level, message: unknown, fields: Record<string, unknown>): void {
    if (typeof message === 'string') return this.pino[level](fields, redactSecrets(message));
    if (message !== null && typeof message === 'object') {
      const { message: text, ...rest } = message as Record<string, unknown>;
      return this.pino[level]({ ...fields, ...rest }, typeof text === 'string' ? redactSecrets(text) : '');
    }
    this.pino[level](fields, redactSecrets(String(message)));
  }
}
