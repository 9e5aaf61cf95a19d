import { freePort } from '@gw/testing';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AppProcess, startApp } from './app-process';
import { removeEmbeddedData } from './embedded-data';

export interface EmbeddedGateway {
  app: AppProcess;
  /** `http://127.0.0.1:<port>/api` */
  api: string;
  apiKey: string;
  adminToken: string;
  /** Its DATA_DIR: the database pointer, the demo credentials and the local blob store (`files/`). */
  dataDir: string;
  stop(): Promise<void>;
}

/**
 * The built embedded app on free ports with a fresh DATA_DIR, as `npm start` runs it; resolves once
 * the banner with the demo key and the admin token has been printed.
 */
export async function startEmbeddedGateway(
  label: string,
  env: Record<string, string> = {},
): Promise<EmbeddedGateway> {
  const dataDir = mkdtempSync(join(tmpdir(), `gw-${label}-`));
  const port = await freePort();
  const app = startApp('embedded', {
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    EMBEDDED_PG_PORT: String(await freePort()),
    ...env,
  });
  const stop = async () => {
    await app.stop();
    removeEmbeddedData(dataDir);
  };
  try {
    const [, apiKey] = await app.waitFor(/Demo API key\s+(\S+)/, 90_000);
    const [, adminToken] = await app.waitFor(/Admin token\s+(\S+)/);
    await app.waitFor(/curl -s \S+\/v1\/history\/generations.*\n/);
    return { app, api: `http://127.0.0.1:${port}/api`, apiKey, adminToken, dataDir, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
