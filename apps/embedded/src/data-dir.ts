import { StartupError } from '@gw/platform';
import { accessSync, constants, existsSync, mkdirSync, statSync } from 'node:fs';

/** Creates DATA_DIR when missing and makes sure this user can read and write it, naming it otherwise. */
export function prepareDataDir(dataDir: string): void {
  if (existsSync(dataDir) && !statSync(dataDir).isDirectory())
    throw new StartupError(`DATA_DIR ${dataDir} is not a directory: set DATA_DIR to a directory`);
  try {
    mkdirSync(dataDir, { recursive: true });
  } catch (err) {
    throw new StartupError(
      `Cannot create DATA_DIR ${dataDir} (${code(err)}): set DATA_DIR to a directory this user can write`,
    );
  }
  try {
    accessSync(dataDir, constants.R_OK | constants.W_OK | constants.X_OK);
  } catch (err) {
    throw new StartupError(
      `DATA_DIR ${dataDir} is not readable and writable by this user (${code(err)}): fix its permissions or set DATA_DIR to another directory`,
    );
  }
}

function code(err: unknown): string {
  return (err as NodeJS.ErrnoException).code ?? (err as Error).message;
}
