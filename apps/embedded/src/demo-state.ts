import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { StartupError } from '@gw/platform';

export interface DemoAccount {
  organizationId: string;
  userId: string;
  email: string;
  password: string;
  apiKey: string;
}

/** Secrets and the demo account of the embedded mode, created on first start and kept under DATA_DIR. */
export interface DemoState {
  jwtSecret: string;
  adminToken: string;
  account: DemoAccount | null;
}

const FILE = 'demo.json';

export function loadDemoState(dataDir: string, adminTokenOverride: string | undefined): DemoState {
  const path = join(dataDir, FILE);
  const stored: Partial<DemoState> = existsSync(path) ? readStored(path, dataDir) : {};
  const state: DemoState = {
    jwtSecret: stored.jwtSecret ?? randomBytes(32).toString('base64url'),
    adminToken: stored.adminToken ?? `adm-${randomBytes(24).toString('base64url')}`,
    account: stored.account ?? null,
  };
  saveDemoState(dataDir, state);
  return adminTokenOverride ? { ...state, adminToken: adminTokenOverride } : state;
}

function readStored(path: string, dataDir: string): Partial<DemoState> {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Partial<DemoState>;
  } catch (err) {
    throw new StartupError(
      `${path} is unreadable (${(err as Error).message}): delete ${dataDir} to start over with a new demo account`,
    );
  }
}

export function saveDemoState(dataDir: string, state: DemoState): void {
  writeFileSync(join(dataDir, FILE), JSON.stringify(state, null, 2) + '\n', { mode: 0o600 });
}
