import { freePort } from '@gw/testing';
import { execFile, execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, realpathSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type AppProcess, startApp, WORKSPACE_ROOT } from './support/app-process';
import { embeddedCluster, removeEmbeddedData } from './support/embedded-data';
import { http, sseData } from './support/gateway-http';

const run = promisify(execFile);
const isRoot = process.getuid?.() === 0;

/**
 * `git clone … && npm install && npm start` as a new user does it, in the places that used to fail:
 * as root (the user CI and containers run as) with the checkout inside a 0700 directory, with
 * PostgreSQL's default port already taken, and next to another instance.
 */
describe('quick start from a private checkout', () => {
  let privateDir: string;
  let checkout: string;
  let app: AppProcess;
  let api: string;
  let second: { app: AppProcess; dataDir: string } | undefined;

  beforeAll(async () => {
    // On the checkout's file system, so node_modules can be hard-linked rather than copied.
    privateDir = mkdtempSync(join(tmpdir(), 'gw-private-'));
    checkout = join(privateDir, 'gateway');
    mkdirSync(join(checkout, 'dist/apps'), { recursive: true });
    cpSync(join(WORKSPACE_ROOT, 'dist/apps/embedded'), join(checkout, 'dist/apps/embedded'), {
      recursive: true,
    });
    cpSync(join(WORKSPACE_ROOT, 'config'), join(checkout, 'config'), { recursive: true });
    cpSync(join(WORKSPACE_ROOT, 'package.json'), join(checkout, 'package.json'));
    execFileSync('cp', [
      '-al',
      realpathSync(join(WORKSPACE_ROOT, 'node_modules')),
      join(checkout, 'node_modules'),
    ]);
    const port = await freePort();
    // DATA_DIR and EMBEDDED_PG_PORT left to their defaults, as `npm start` runs.
    app = startApp(
      'embedded',
      { PORT: String(port), HOST: '127.0.0.1', DATA_DIR: '', EMBEDDED_PG_PORT: '' },
      checkout,
    );
    await app.waitFor(/curl -s \S+\/v1\/history\/generations.*\n/, 110_000);
    api = `http://127.0.0.1:${port}/api`;
  }, 120_000);

  afterAll(async () => {
    await app?.stop();
    await second?.app.stop();
    if (second) removeEmbeddedData(second.dataDir);
    if (checkout) removeEmbeddedData(join(checkout, '.data'));
    rmSync(privateDir, { recursive: true, force: true });
  });

  it('answers the curl lines it prints, without opening the private directory', async () => {
    const lines = app
      .output()
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line.startsWith('curl '));
    expect(lines).toHaveLength(7);
    const [models, chat, stream, embedding, image, balance, history] = await Promise.all(
      lines.map((line) =>
        run('bash', ['-c', `${line} -w '\\n%{http_code}'`]).then((result) => result.stdout),
      ),
    );
    for (const output of [models, chat, embedding, image, balance, history])
      expect(output.split('\n').at(-1)).toBe('200');
    expect(JSON.parse(chat.slice(0, chat.lastIndexOf('\n'))).choices[0].message.content).toContain(
      'Hello, gateway!',
    );
    expect(sseData(stream).at(-1)).toBe('[DONE]');
    const images = JSON.parse(image.slice(0, image.lastIndexOf('\n'))) as { data: { url: string }[] };
    expect((await fetch(images.data[0].url)).headers.get('content-type')).toMatch(/^image\//);
    expect(statSync(privateDir).mode & 0o777).toBe(0o700);
    const cluster = embeddedCluster(join(checkout, '.data'));
    // As root the postgres user cannot enter the private directory, so its cluster lives outside it.
    if (isRoot) expect(cluster.directory).toMatch(/^\/var\/lib\/model-gateway\/clusters\//);
    else expect(cluster.directory).toBe(join(checkout, '.data', 'postgres'));
  });

  it('runs a second instance beside the first, on another PostgreSQL port it remembers', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'gw-second-'));
    const port = await freePort();
    second = {
      dataDir,
      app: startApp('embedded', {
        PORT: String(port),
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        EMBEDDED_PG_PORT: '',
      }),
    };
    await second.app.waitFor(/curl -s \S+\/v1\/history\/generations.*\n/, 110_000);
    const [, taken] = second.app.output().match(/PostgreSQL's port 54329 is in use; took (\d+)/) ?? [];
    expect(embeddedCluster(dataDir).port).toBe(Number(taken));
    expect(embeddedCluster(dataDir).port).not.toBe(embeddedCluster(join(checkout, '.data')).port);
    expect((await http('GET', `http://127.0.0.1:${port}/api/v1/models`)).status).toBe(200);
    expect((await http('GET', `${api}/v1/models`)).status).toBe(200);
  }, 120_000);
});
