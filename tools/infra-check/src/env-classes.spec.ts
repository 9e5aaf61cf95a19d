import { IsIn, IsOptional, IsString, MinLength } from 'class-validator';
import { join } from 'node:path';
import { envVariables, readAppEnv } from './env-classes';

class DemoBaseEnv {
  @IsString()
  NATS_URL = 'nats://127.0.0.1:4222';

  @IsString()
  DATABASE_URL!: string;
}

function WithSecret<Base extends new (...args: any[]) => object>(base: Base) {
  class SecretEnv extends base {
    @IsString()
    @MinLength(16)
    JWT_SECRET!: string;
  }
  return SecretEnv;
}

class DemoEnv extends WithSecret(DemoBaseEnv) {
  @IsString()
  override DATABASE_URL = 'postgres://127.0.0.1/demo';

  @IsOptional()
  @IsString()
  ADMIN_TOKEN?: string;

  @IsIn(['json', 'pretty'])
  LOG_FORMAT: 'json' | 'pretty' = 'pretty';

  @IsString()
  helperMember = 'not a variable';
}

describe('envVariables', () => {
  it('tells required variables from those with a default or marked optional, through bases and mixins', () => {
    expect(Object.fromEntries(envVariables(DemoEnv))).toEqual({
      NATS_URL: false,
      DATABASE_URL: false,
      JWT_SECRET: true,
      ADMIN_TOKEN: false,
      LOG_FORMAT: false,
    });
  });
});

describe('readAppEnv', () => {
  const root = join(__dirname, '../../..');

  it('reads an app env class with what it inherits', () => {
    const env = readAppEnv(root, 'auth');
    expect(env?.variables.get('DATABASE_URL')).toBe(false);
    expect(env?.variables.get('JWT_SECRET')).toBe(true);
    expect(env?.variables.get('NATS_URL')).toBe(false);
  });

  it('is undefined for an app without an env file', () => {
    expect(readAppEnv(root, 'missing')).toBeUndefined();
  });
});
