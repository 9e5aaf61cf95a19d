import type { LoggerService } from '@nestjs/common';

const drop = (): void => undefined;

/** For services started inside a test whose log lines would only be noise. */
export const silentLogger: LoggerService = {
  log: drop,
  error: drop,
  warn: drop,
  debug: drop,
  verbose: drop,
  fatal: drop,
};
