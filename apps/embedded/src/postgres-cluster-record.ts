import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { StartupError } from '@gw/platform';
import { canEnter, type PostgresUser } from './postgres-user';

/** Where root keeps clusters whose DATA_DIR the `postgres` user cannot enter. */
export const CLUSTER_ROOT = '/var/lib/model-gateway/clusters';

/** What DATA_DIR remembers of its cluster: where it lives and the port it last took. */
export interface ClusterRecord {
  directory: string;
  port: number;
}

const FILE = 'postgres.json';

export function readClusterRecord(dataDir: string): Partial<ClusterRecord> {
  const path = join(dataDir, FILE);
  if (!existsSync(path)) return {};
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Partial<ClusterRecord>;
  } catch (err) {
    throw new StartupError(
      `${path} is unreadable (${(err as Error).message}): delete ${dataDir} to start over with a new database`,
    );
  }
}

export function saveClusterRecord(dataDir: string, record: ClusterRecord): void {
  writeFileSync(join(dataDir, FILE), JSON.stringify(record, null, 2) + '\n', { mode: 0o600 });
}

/**
 * The cluster stays in `<DATA_DIR>/postgres` wherever PostgreSQL's user can reach it (always when
 * not root). As root with a DATA_DIR in a private directory it goes to a postgres-owned directory
 * under CLUSTER_ROOT keyed by the resolved DATA_DIR, and DATA_DIR's record points to it. Without a
 * record such a directory belongs to a DATA_DIR that was deleted to start over, so it is cleared.
 */
export function clusterDirectory(
  dataDir: string,
  recorded: string | undefined,
  user: PostgresUser | null,
): string {
  if (recorded) return recorded;
  const inside = join(dataDir, 'postgres');
  if (!user || existsSync(join(inside, 'PG_VERSION')) || canEnter(user, dataDir)) return inside;
  const outside = join(CLUSTER_ROOT, createHash('sha256').update(dataDir).digest('hex').slice(0, 24));
  rmSync(outside, { recursive: true, force: true });
  return outside;
}
