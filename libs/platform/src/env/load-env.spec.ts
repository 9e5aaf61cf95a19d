import { startTestS3, TEST_DATABASE_ADMIN_URL } from '@gw/testing';
import { IsInt, IsOptional, IsString, Max, Min, MinLength } from 'class-validator';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { WithBlobStore } from '../blobs/blob-store-env';
import { ServiceEnv, WithJwtSecret } from './base-env';
import { EnvValidationError, loadEnv } from './load-env';

class ExampleEnv {
  @IsInt()
  @Min(1)
  @Max(65535)
  PORT: number = 3000;

  @IsString()
  @MinLength(16)
  SECRET!: string;

  @IsOptional()
  @IsString()
  OPTIONAL?: string;
}

describe('loadEnv', () => {
  it('converts numbers, keeps defaults and ignores unrelated variables', () => {
    const env = loadEnv(ExampleEnv, { PORT: '8080', SECRET: 'a-secret-of-16-chars', PATH: '/usr/bin' });
    expect(env).toMatchObject({ PORT: 8080, SECRET: 'a-secret-of-16-chars' });
    expect(loadEnv(ExampleEnv, { SECRET: 'a-secret-of-16-chars', PORT: '' }).PORT).toBe(3000);
  });

  it.each([
    ['a missing required variable', { PORT: '80' }, /SECRET/],
    [
      'a malformed number',
      { PORT: 'eighty', SECRET: 'a-secret-of-16-chars' },
      /PORT: PORT must be an integer/,
    ],
    [
      'an out-of-range number',
      { PORT: '70000', SECRET: 'a-secret-of-16-chars' },
      /PORT: PORT must not be greater than 65535/,
    ],
  ])('stops on %s, naming the variable', (_case, source, message) => {
    expect(() => loadEnv(ExampleEnv, source)).toThrow(EnvValidationError);
    expect(() => loadEnv(ExampleEnv, source)).toThrow(message);
  });

  it.each([
    ['the k8s Secret placeholder', 'PLACEHOLDER-jwt-secret-replace-me'],
    ['a compose fallback', 'local-jwt-secret-change-me'],
    ['a placeholder inside a URL', 'postgres://gateway:PLACEHOLDER-password@db:5432/gateway'],
  ])('refuses %s in a variable it reads, naming the variable', (_case, value) => {
    expect(() => loadEnv(ExampleEnv, { SECRET: value })).toThrow(
      "SECRET: holds a template's placeholder, not a value of this deployment",
    );
    expect(() => loadEnv(ExampleEnv, { SECRET: 'a-secret-of-16-chars', OTHER: value })).not.toThrow();
  });
});

/** What a deployed service with the s3 store reads: the variables the weak-secret checks look at. */
class DeployedEnv extends WithBlobStore(WithJwtSecret(ServiceEnv)) {
  @IsOptional()
  @IsString()
  ADMIN_TOKEN?: string;
}

const ROOT = join(__dirname, '../../../..');
const STRONG = {
  JWT_SECRET: 'e2e-jwt-secret-observability',
  ADMIN_TOKEN: 'e2e-admin-token-observability',
  NATS_USER: 'billing',
  NATS_PASSWORD: 'pN4tsPasswordOfTheTest',
  DATABASE_URL: 'postgres://gateway:a-long-db-password@db:5432/gateway',
  BLOB_STORE: 's3',
  S3_BUCKET: 'model-gateway',
  S3_ACCESS_KEY_ID: 'AKIAEXAMPLEKEYID',
  S3_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
};
const deployed = (source: Record<string, string>) => () => loadEnv(DeployedEnv, source, { deployed: true });

/** `NAME: value` pairs of a manifest's stringData (the k8s Secret templates). */
const stringData = (path: string): [string, string][] =>
  [...readFileSync(join(ROOT, path), 'utf8').matchAll(/^ {2}([A-Z][A-Z0-9_]*): (\S+)$/gm)].map(
    ([, name, value]) => [name, value],
  );

describe('loadEnv of a deployed app: weak and published secrets', () => {
  it('accepts strong secrets, and a database URL without a password (trust authentication)', () => {
    expect(deployed(STRONG)).not.toThrow();
    expect(deployed({ ...STRONG, DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/gateway' })).not.toThrow();
    expect(deployed({ ...STRONG, DATABASE_URL: 'postgres://127.0.0.1:5432/gateway' })).not.toThrow();
  });

  it('accepts what the e2e stacks give their apps: the test database URL and the test S3 server', async () => {
    const s3 = await startTestS3();
    try {
      const db = new URL(TEST_DATABASE_ADMIN_URL);
      db.pathname = '/t_e2e_example';
      const e2e = { ...STRONG, ...s3.env, DATABASE_URL: db.toString(), NATS_URL: 'nats://127.0.0.1:4222' };
      delete (e2e as Partial<typeof e2e>).NATS_USER;
      delete (e2e as Partial<typeof e2e>).NATS_PASSWORD;
      expect(deployed(e2e)).not.toThrow();
    } finally {
      await s3.stop();
    }
  });

  it.each([
    [
      'the former compose PostgreSQL fallback',
      { DATABASE_URL: 'postgres://gateway:gateway-local@postgres:5432/gateway' },
      'DATABASE_URL: its password is a demo or local value',
    ],
    [
      'the former compose S3 key id',
      { S3_ACCESS_KEY_ID: 'gateway-local' },
      'S3_ACCESS_KEY_ID: holds a demo or local value',
    ],
    [
      'the former compose S3 secret key',
      { S3_SECRET_ACCESS_KEY: 'gateway-local-secret' },
      'S3_SECRET_ACCESS_KEY: holds a demo or local value',
    ],
    [
      'a gateway-local JWT secret',
      { JWT_SECRET: 'gateway-local-jwt-secret' },
      'JWT_SECRET: holds a demo or local value',
    ],
    [
      'a change-me password in the database URL',
      { DATABASE_URL: 'postgres://gateway:change-me@db/gateway' },
      "DATABASE_URL: holds a template's placeholder",
    ],
    [
      'a short database password',
      { DATABASE_URL: 'postgres://gateway:secret@db:5432/gateway' },
      'DATABASE_URL: its password must be 16 or more characters',
    ],
    [
      'an empty database password',
      { DATABASE_URL: 'postgres://gateway:@db:5432/gateway' },
      'DATABASE_URL: its password must be 16 or more characters',
    ],
    [
      'a short percent-encoded password',
      { DATABASE_URL: 'postgres://gateway:%70%61%73%73@db/gateway' },
      'DATABASE_URL: its password must be 16 or more characters',
    ],
    [
      'a short password in the NATS URL',
      { NATS_URL: 'nats://billing:short@nats:4222' },
      'NATS_URL: its password must be 16 or more characters',
    ],
    [
      'a short S3 secret key',
      { S3_SECRET_ACCESS_KEY: 'S3RVER' },
      'S3_SECRET_ACCESS_KEY: must be 16 or more characters',
    ],
  ])('refuses %s, naming the variable and not the value (broken fixture)', (_case, change, message) => {
    const source = { ...STRONG, ...change };
    expect(deployed(source)).toThrow(EnvValidationError);
    expect(deployed(source)).toThrow(message);
    const value = Object.values(change)[0];
    const password = /:\/\/[^:]*:([^@]+)@/.exec(value)?.[1] ?? value;
    expect(() => deployed(source)()).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining(password) }),
    );
  });

  it.each(['k8s/base/secret.yaml', 'k8s/base/nats-users.yaml'])(
    'refuses every value of %s (the repository placeholders)',
    (path) => {
      const values = stringData(path).filter(([name]) => name !== 'NATS_USER');
      expect(values.length).toBeGreaterThanOrEqual(5);
      for (const [name, value] of values) {
        const variable = name === 'DATABASE_MIGRATION_URL' ? 'DATABASE_URL' : name;
        expect({ name, refused: refused({ ...STRONG, [variable]: value }) }).toEqual({ name, refused: true });
      }
    },
  );

  it('leaves a short S3 secret key to a local store, and the embedded mode to its own secrets', () => {
    expect(deployed({ ...STRONG, BLOB_STORE: 'local', S3_SECRET_ACCESS_KEY: 'short' })).not.toThrow();
    const embedded = {
      ...STRONG,
      DATABASE_URL: 'postgres://postgres:pw@127.0.0.1:54329/gateway',
      S3_SECRET_ACCESS_KEY: 'S3RVER',
    };
    expect(() => loadEnv(DeployedEnv, embedded)).not.toThrow();
    expect(deployed(embedded)).toThrow(EnvValidationError);
  });
});

function refused(source: Record<string, string>): boolean {
  try {
    loadEnv(DeployedEnv, source, { deployed: true });
    return false;
  } catch (error) {
    return error instanceof EnvValidationError;
  }
}
