import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

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
  const stored: Partial<DemoState> = existsSync(path)
    ? (JSON.parse(readFileSync(path, 'utf8')) as Partial<DemoState>)
    : {};
  const state: DemoState = {
    jwtSecret: stored.jwtSecret ?? randomBytes(32).toString('base64url'),
    adminToken: stored.adminToken ?? `adm-${randomBytes(24).toString('base64url')}`,
    account: stored.account ?? null,
  };
  saveDemoState(dataDir, state);
  return adminTokenOverride ? { ...state, adminToken: adminTokenOverride } : state;
}

export function saveDemoState(dataDir: string, state: DemoState): void {
  writeFileSync(join(dataDir, FILE), JSON.stringify(state, null, 2) + '\n', { mode: 0o600 });
}
