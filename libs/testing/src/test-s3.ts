import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port';

/** The part of s3rver's API the tests use (the package ships no types). */
interface S3rverServer {
  run(): Promise<unknown>;
  close(): Promise<void>;
  httpServer?: { closeAllConnections(): void };
}
type S3rverConstructor = new (options: {
  address: string;
  port: number;
  silent: boolean;
  directory: string;
  configureBuckets: Array<{ name: string }>;
}) => S3rverServer;

export interface TestS3 {
  endpoint: string;
  bucket: string;
  /** The blob-store variables of an app that should use this server. */
  env: Record<string, string>;
  /** Stops the server and starts it again on the same port and data, down for `downMs` (an outage of the store). */
  restart(downMs?: number): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A real S3-compatible server (s3rver) on a free port with one bucket, for one test file; its data
 * lives in a temporary directory removed at stop.
 */
export async function startTestS3(bucket = 'gateway-test-files'): Promise<TestS3> {
  const S3rver = createRequire(__filename)('s3rver') as S3rverConstructor;
  const port = await freePort();
  const directory = mkdtempSync(join(tmpdir(), 'gw-s3-'));
  const run = async () => {
    const started = new S3rver({
      address: '127.0.0.1',
      port,
      silent: true,
      directory,
      configureBuckets: [{ name: bucket }],
    });
    await started.run();
    return started;
  };
  let server = await run();
  const secretAccessKey = `s3rver-secret-${randomBytes(12).toString('hex')}`;
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    bucket,
    env: {
      BLOB_STORE: 's3',
      S3_ENDPOINT: endpoint,
      S3_REGION: 'us-east-1',
      S3_BUCKET: bucket,
      // s3rver's one key id; it does not check SigV4 signatures, so the secret key is this server's
      // own: long enough for the apps (16+ characters) and unique, for a test that greps logs for it.
      S3_ACCESS_KEY_ID: 'S3RVER',
      S3_SECRET_ACCESS_KEY: secretAccessKey,
      S3_FORCE_PATH_STYLE: 'true',
    },
    restart: async (downMs = 0) => {
      // Down at once, as a crashed store is: requests in flight are cut, not let finish.
      const closed = server.close();
      server.httpServer?.closeAllConnections();
      await closed;
      await new Promise((resolve) => setTimeout(resolve, downMs));
      server = await run();
    },
    stop: async () => {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
