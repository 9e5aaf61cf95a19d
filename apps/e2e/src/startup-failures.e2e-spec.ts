import { freePort } from '@gw/testing';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApp } from './support/app-process';
import { removeEmbeddedData } from './support/embedded-data';

/** The machine's PostgreSQL and NATS (README), for the cases that must get past them. */
const DATABASE_URL = process.env['TEST_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const NATS_URL = 'nats://127.0.0.1:4222';
const SECRET = 'a-jwt-secret-of-at-least-32-chars!!';

interface Case {
  app: string;
  env: () => Record<string, string>;
  line: RegExp;
}

/**
 * Every app, started wrong, stops with one line saying what failed and what to do, and a non-zero
 * exit code: no unhandled event, no bare stack trace, no `undefined`.
 */
describe('start-up failures', () => {
  let scratch: string;
  let busy: Server;
  let busyPort: number;
  let closedPort: number;

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'gw-startup-'));
    writeFileSync(join(scratch, 'a-file'), 'not a directory');
    writeFileSync(join(scratch, 'catalogue.json'), '{"models": [{"id": "x"}]}');
    mkdirSync(join(scratch, 'corrupt-demo'));
    writeFileSync(join(scratch, 'corrupt-demo', 'demo.json'), '{"adminToken": ');
    mkdirSync(join(scratch, 'corrupt-cluster', 'postgres'), { recursive: true });
    writeFileSync(join(scratch, 'corrupt-cluster', 'postgres', 'PG_VERSION'), '18\n');
    busy = createServer();
    busyPort = await new Promise<number>((resolve) =>
      busy.listen(0, '127.0.0.1', () => resolve((busy.address() as { port: number }).port)),
    );
    closedPort = await freePort();
  });

  afterAll(async () => {
    await new Promise((resolve) => busy.close(resolve));
    for (const dataDir of ['data', 'pg-port', 'corrupt-cluster', 'catalogue-data'])
      removeEmbeddedData(join(scratch, dataDir));
    rmSync(scratch, { recursive: true, force: true });
  });

  const embedded = (env: () => Record<string, string>) => () => ({
    HOST: '127.0.0.1',
    PORT: '0',
    DATA_DIR: join(scratch, 'data'),
    ...env(),
  });
  const service = (env: () => Record<string, string>) => () => ({
    DATABASE_URL,
    NATS_URL,
    JWT_SECRET: SECRET,
    ...env(),
  });

  const cases: [string, Case][] = [
    [
      'embedded: a busy PORT',
      {
        app: 'embedded',
        env: embedded(() => ({ PORT: String(busyPort) })),
        line: /^Port \d+ is already in use: stop the other process or set PORT to a free port$/,
      },
    ],
    [
      'embedded: a busy EMBEDDED_PG_PORT given explicitly',
      {
        app: 'embedded',
        env: embedded(() => ({ EMBEDDED_PG_PORT: String(busyPort), DATA_DIR: join(scratch, 'pg-port') })),
        line: /^Port \d+ is already in use: stop the other process or set EMBEDDED_PG_PORT to a free port/,
      },
    ],
    [
      'embedded: DATA_DIR is a file',
      {
        app: 'embedded',
        env: embedded(() => ({ DATA_DIR: join(scratch, 'a-file') })),
        line: /^DATA_DIR \S+ is not a directory: set DATA_DIR to a directory$/,
      },
    ],
    [
      'embedded: DATA_DIR cannot be created',
      {
        app: 'embedded',
        env: embedded(() => ({ DATA_DIR: join(scratch, 'a-file', 'data') })),
        line: /^Cannot create DATA_DIR \S+ \(ENOTDIR\): set DATA_DIR to a directory this user can write$/,
      },
    ],
    [
      'embedded: a corrupt demo state in DATA_DIR',
      {
        app: 'embedded',
        env: embedded(() => ({ DATA_DIR: join(scratch, 'corrupt-demo') })),
        line: /demo\.json is unreadable .*: delete \S+ to start over/,
      },
    ],
    [
      'embedded: a corrupt PostgreSQL data directory',
      {
        app: 'embedded',
        env: embedded(() => ({ DATA_DIR: join(scratch, 'corrupt-cluster') })),
        line: /^PostgreSQL did not start on \S+ \(.+\): if its files are damaged, delete \S+ to start over$/,
      },
    ],
    [
      'embedded: an invalid catalogue',
      {
        app: 'embedded',
        env: embedded(() => ({
          CATALOGUE_FILE: join(scratch, 'catalogue.json'),
          DATA_DIR: join(scratch, 'catalogue-data'),
        })),
        line: /^Invalid model catalogue \S+catalogue\.json: /,
      },
    ],
    [
      'embedded: a malformed variable',
      {
        app: 'embedded',
        env: embedded(() => ({ PORT: 'eighty' })),
        line: /^Invalid environment: PORT: .*PORT must be an integer number/,
      },
    ],
    [
      'auth: PostgreSQL unreachable',
      {
        app: 'auth',
        env: service(() => ({ DATABASE_URL: `postgres://postgres@127.0.0.1:${closedPort}/gateway` })),
        line: /^Cannot reach PostgreSQL at 127\.0\.0\.1:\d+\/gateway \(DATABASE_URL\): .+; start it or set DATABASE_URL$/,
      },
    ],
    [
      'billing: NATS unreachable',
      {
        app: 'billing',
        env: service(() => ({ NATS_URL: `nats://127.0.0.1:${closedPort}` })),
        line: /^Cannot reach NATS at nats:\/\/127\.0\.0\.1:\d+ \(NATS_URL\): .+; start nats-server -js or set NATS_URL$/,
      },
    ],
    [
      'storage: PostgreSQL unreachable',
      {
        app: 'storage',
        env: service(() => ({ DATABASE_URL: `postgres://postgres@127.0.0.1:${closedPort}/gateway` })),
        line: /^Cannot reach PostgreSQL at /,
      },
    ],
    [
      'media: a database that does not exist',
      {
        app: 'media',
        env: service(() => ({ DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/no_such_database_here' })),
        line: /^Cannot reach PostgreSQL at 127\.0\.0\.1:5432\/no_such_database_here \(DATABASE_URL\): .*does not exist/,
      },
    ],
    [
      'auth: a missing variable',
      {
        app: 'auth',
        env: service(() => ({ JWT_SECRET: '' })),
        line: /^Invalid environment: JWT_SECRET: .+\(set the variables named and start again\)$/,
      },
    ],
    [
      'billing: a short password in DATABASE_URL',
      {
        app: 'billing',
        env: service(() => ({ DATABASE_URL: 'postgres://gateway:weak@127.0.0.1:5432/gateway' })),
        line: /^Invalid environment: DATABASE_URL: its password must be 16 or more characters \(or absent\) \(set the variables named and start again\)$/,
      },
    ],
    [
      'api-gateway: the S3 secret key compose once fell back on',
      {
        app: 'api-gateway',
        env: () => ({
          NATS_URL,
          JWT_SECRET: SECRET,
          ADMIN_TOKEN: 'an-admin-token-long-enough',
          BLOB_STORE: 's3',
          S3_BUCKET: 'model-gateway',
          S3_ACCESS_KEY_ID: 'an-access-key-id',
          S3_SECRET_ACCESS_KEY: 'gateway-local-secret',
        }),
        line: /^Invalid environment: S3_SECRET_ACCESS_KEY: holds a demo or local value this repository publishes/,
      },
    ],
    [
      'inference: an invalid catalogue',
      {
        app: 'inference',
        env: service(() => ({ CATALOGUE_FILE: join(scratch, 'catalogue.json') })),
        line: /^Invalid model catalogue \S+catalogue\.json: /,
      },
    ],
    [
      'api-gateway: NATS unreachable',
      {
        app: 'api-gateway',
        env: () => ({
          NATS_URL: `nats://127.0.0.1:${closedPort}`,
          JWT_SECRET: SECRET,
          ADMIN_TOKEN: 'an-admin-token-long-enough',
        }),
        line: /^Cannot reach NATS at nats:\/\/127\.0\.0\.1:\d+ \(NATS_URL\)/,
      },
    ],
    [
      'api-gateway: a busy PORT',
      {
        app: 'api-gateway',
        env: () => ({
          NATS_URL,
          JWT_SECRET: SECRET,
          ADMIN_TOKEN: 'an-admin-token-long-enough',
          HOST: '127.0.0.1',
          PORT: String(busyPort),
        }),
        line: /^Port \d+ is already in use: stop the other process or set PORT to a free port$/,
      },
    ],
    [
      'mock-upstream: a busy PORT',
      {
        app: 'mock-upstream',
        env: () => ({ HOST: '127.0.0.1', PORT: String(busyPort) }),
        line: /^Port \d+ is already in use: stop the other process or set PORT to a free port$/,
      },
    ],
  ];

  /** Each case's exit code and output; the apps start a few at a time, since each takes seconds to load. */
  const outcomes = new Map<string, Promise<{ code: number | null; output: string }>>();
  const outcome = (name: string, { app, env }: Case) => {
    const started = startApp(app, env());
    return new Promise<{ code: number | null; output: string }>((resolve) =>
      started.child.once('close', (code) => resolve({ code, output: started.output() })),
    );
  };

  beforeAll(async () => {
    const queue = [...cases];
    const worker = async (): Promise<void> => {
      for (let next = queue.shift(); next; next = queue.shift()) {
        const [name, testCase] = next;
        const result = outcome(name, testCase);
        outcomes.set(name, result);
        await result;
      }
    };
    await Promise.all([worker(), worker(), worker(), worker()]);
  }, 120_000);

  it.each(cases)('%s: one line and a non-zero exit', async (name, { line }) => {
    const { code, output } = await outcomes.get(name)!;
    expect({ code, last: output.trim().split('\n').at(-1) }).toEqual({
      code: 1,
      last: expect.stringMatching(line),
    });
    expect(output).not.toMatch(/^\s+at /m);
    expect(output).not.toMatch(/^undefined$/m);
  });
});
