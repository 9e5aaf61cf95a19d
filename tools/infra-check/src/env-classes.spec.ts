import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseEnvClasses, readAppEnv } from './env-classes';

describe('parseEnvClasses', () => {
  it('tells required variables from those with a default or marked optional', () => {
    const [env] = parseEnvClasses(`
      import { IsIn, IsString } from 'class-validator';

      /** Reads { braces } and; semicolons in comments without harm. */
      export class DemoEnv {
        @IsString()
        NATS_URL = 'nats://127.0.0.1:4222'; // a URL is not a comment

        @IsString() @MinLength(16)
        JWT_SECRET!: string;

        @IsOptional()
        ADMIN_TOKEN?: string;

        @IsIn(['json', 'pretty'])
        LOG_FORMAT: 'json' | 'pretty' = 'pretty';

        @ValidateNested({ each: true })
        LIMITS: Record<string, number> = {
          a: 1,
        };

        UPSTREAM_KEY: string;

        get natsServers(): string[] {
          const LOCAL = this.NATS_URL;
          return [LOCAL];
        }
      }
    `);
    expect(env.name).toBe('DemoEnv');
    expect(Object.fromEntries(env.variables)).toEqual({
      NATS_URL: false,
      JWT_SECRET: true,
      ADMIN_TOKEN: false,
      LOG_FORMAT: false,
      LIMITS: false,
      UPSTREAM_KEY: true,
    });
  });

  it('records the base class', () => {
    const [env] = parseEnvClasses('export class StorageEnv extends ServiceEnv {\n  S3_BUCKET!: string;\n}');
    expect(env).toMatchObject({ name: 'StorageEnv', base: 'ServiceEnv' });
  });
});

describe('readAppEnv', () => {
  let root: string;

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'infra-check-'));
    mkdirSync(join(root, 'libs/platform/src/env'), { recursive: true });
    mkdirSync(join(root, 'apps/demo/src'), { recursive: true });
    writeFileSync(
      join(root, 'libs/platform/src/env/base-env.ts'),
      'export class ServiceEnv {\n  NATS_URL = "x";\n  DATABASE_URL!: string;\n}\n',
    );
    writeFileSync(
      join(root, 'apps/demo/src/demo.env.ts'),
      'export class DemoEnv extends ServiceEnv {\n  DATABASE_URL = "y";\n  API_KEY!: string;\n}\n',
    );
  });

  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('merges inherited variables, letting the subclass give one a default', () => {
    const env = readAppEnv(root, 'demo');
    expect(env && Object.fromEntries(env.variables)).toEqual({
      NATS_URL: false,
      DATABASE_URL: false,
      API_KEY: true,
    });
  });

  it('is undefined for an app without an env file', () => {
    expect(readAppEnv(root, 'missing')).toBeUndefined();
  });
});
