import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';

/** Where the embedded mode keeps the PostgreSQL cluster of `dataDir` (DATA_DIR/postgres.json). */
export function embeddedCluster(dataDir: string): { directory: string; port: number } {
  return JSON.parse(readFileSync(join(dataDir, 'postgres.json'), 'utf8'));
}

/**
 * Removes a test's DATA_DIR and, when the embedded mode ran as root and kept the cluster outside it
 * (under /var/lib/model-gateway/clusters), that cluster too, so test runs leave nothing behind.
 */
export function removeEmbeddedData(dataDir: string): void {
  if (existsSync(join(dataDir, 'postgres.json'))) {
    const { directory } = embeddedCluster(dataDir);
    if (relative(dataDir, directory).startsWith('..')) rmSync(directory, { recursive: true, force: true });
  }
  rmSync(dataDir, { recursive: true, force: true });
}
