// The apps' NATS options are tried with the platform's own code on a real TLS server.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { checkNats, natsAuth, type NatsClientEnv } from '@gw/platform';
import { startTestNats, type TestNats } from '@gw/testing';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NATS_USERS, passwordVariable } from './nats-users';

// NATS over TLS: deploy/nats/nats.conf with a `tls` block on a real nats-server, its certificate
// signed by a CA made here with openssl; the apps verify it with NATS_TLS_CA_FILE (natsAuth), and
// connect as their users over it. A server they cannot verify, or one without TLS while a CA is
// configured, is refused rather than used in the clear.

const ROOT = join(__dirname, '../../..');
const USERS = Object.keys(NATS_USERS);
const PASSWORDS = Object.fromEntries(USERS.map((user) => [user, `p${randomBytes(18).toString('hex')}`]));
const ENV = Object.fromEntries(USERS.map((user) => [passwordVariable(user), PASSWORDS[user]]));

const openssl = (dir: string, args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });

/** A CA (`<name>-ca.pem`) and, when `server` is set, a certificate for 127.0.0.1 it signed (`<name>.pem`, `<name>-key.pem`). */
function makeCertificates(dir: string, name: string, server: boolean): void {
  const subject = (cn: string) => ['-subj', `/CN=${cn}`];
  openssl(dir, [
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '2',
    ...subject(`${name} test CA`),
    '-keyout',
    `${name}-ca-key.pem`,
    '-out',
    `${name}-ca.pem`,
  ]);
  if (!server) return;
  writeFileSync(join(dir, `${name}.ext`), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  openssl(dir, [
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    ...subject('nats'),
    '-keyout',
    `${name}-key.pem`,
    '-out',
    `${name}.csr`,
  ]);
  openssl(dir, [
    'x509',
    '-req',
    '-in',
    `${name}.csr`,
    '-CA',
    `${name}-ca.pem`,
    '-CAkey',
    `${name}-ca-key.pem`,
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    `${name}.ext`,
    '-out',
    `${name}.pem`,
  ]);
}

/** What an app's environment gives natsAuth: its user, its password and, optionally, the CA file. */
const envOf = (user: string, caFile?: string): NatsClientEnv =>
  ({
    NATS_USER: user,
    NATS_PASSWORD: PASSWORDS[user],
    ...(caFile ? { NATS_TLS_CA_FILE: caFile } : {}),
  }) as NatsClientEnv;

describe('NATS over TLS (deploy/nats/nats.conf with a tls block, on a real nats-server)', () => {
  let dir: string;
  let tlsNats: TestNats;
  let plainNats: TestNats;
  let ca: string;
  const connections: NatsConnection[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gw-nats-tls-'));
    makeCertificates(dir, 'server', true);
    makeCertificates(dir, 'other', false);
    ca = join(dir, 'server-ca.pem');
    // The operator's config: the repository's (copied beside it: nats-server resolves an include
    // relative to the including file), with the server's certificate.
    for (const file of ['nats.conf', 'auth.conf'])
      copyFileSync(join(ROOT, 'deploy/nats', file), join(dir, file));
    const config = join(dir, 'nats-tls.conf');
    writeFileSync(
      config,
      [
        'include ./nats.conf',
        'tls {',
        `  cert_file: "${join(dir, 'server.pem')}"`,
        `  key_file: "${join(dir, 'server-key.pem')}"`,
        '  timeout: 2',
        '}',
        '',
      ].join('\n'),
    );
    tlsNats = await startTestNats({ configFile: config, env: ENV });
    plainNats = await startTestNats({ configFile: join(ROOT, 'deploy/nats/nats.conf'), env: ENV });
  });

  afterAll(async () => {
    await Promise.all(connections.map((nc) => nc.close()));
    await tlsNats?.stop();
    await plainNats?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('passes the start-up check of an app given NATS_TLS_CA_FILE', async () => {
    await expect(checkNats(tlsNats.url, natsAuth(envOf('billing', ca)))).resolves.toBeUndefined();
  });

  it('carries requests between two apps, each verifying the server and connecting as its own user', async () => {
    const [gateway, billing] = await Promise.all(
      ['api-gateway', 'billing'].map((user) =>
        connect({ servers: tlsNats.url, reconnect: false, ...natsAuth(envOf(user, ca)) }),
      ),
    );
    connections.push(gateway, billing);
    expect(gateway.info?.tls_required).toBe(true);
    const subject = NATS_USERS.billing.serves.find((c) =>
      NATS_USERS['api-gateway'].calls.includes(c),
    )?.subject;
    if (!subject) throw new Error('the gateway calls nothing billing serves');
    billing.subscribe(subject, {
      callback: (_err, message) => {
        message.respond(`over tls: ${message.string()}`);
      },
    });
    await billing.flush();
    const reply = await gateway.request(subject, 'ping', { timeout: 5_000 });
    expect(reply.string()).toBe('over tls: ping');
  });

  it('refuses a server whose certificate the CA file did not sign, and one the system CAs do not know', async () => {
    await expect(
      checkNats(tlsNats.url, natsAuth(envOf('billing', join(dir, 'other-ca.pem')))),
    ).rejects.toThrow(/Cannot reach NATS .*certificate/i);
    await expect(checkNats(tlsNats.url, natsAuth(envOf('billing')))).rejects.toThrow(
      /Cannot reach NATS .*certificate/i,
    );
  });

  it('refuses a server without TLS while a CA file is configured, instead of talking in the clear', async () => {
    await expect(checkNats(plainNats.url, natsAuth(envOf('billing', ca)))).rejects.toThrow(/tls/i);
    // Without one, the plain server of compose is used as before.
    await expect(checkNats(plainNats.url, natsAuth(envOf('billing')))).resolves.toBeUndefined();
  });
});
