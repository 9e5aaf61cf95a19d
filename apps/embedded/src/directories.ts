import { chmodSync, existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Creates `path` and its missing parents, each 0755 whatever the umask, so PostgreSQL's user can
 * pass through them; directories that already exist are left exactly as they are.
 */
export function createPassableDirectories(path: string): void {
  if (existsSync(path)) return;
  createPassableDirectories(dirname(path));
  mkdirSync(path);
  chmodSync(path, 0o755);
}
