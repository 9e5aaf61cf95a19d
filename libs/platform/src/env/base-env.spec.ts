import { IsInt } from 'class-validator';
import { NatsClientEnv, WithHttpListener, WithJwtSecret } from './base-env';
import { EnvValidationError, loadEnv } from './load-env';

class ComposedEnv extends WithJwtSecret(WithHttpListener(NatsClientEnv, 4010)) {
  @IsInt()
  OWN!: number;
}

describe('env schemas composed of the shared groups', () => {
  it('converts, defaults and validates the variables of every group and of the class itself', () => {
    const env = loadEnv(ComposedEnv, {
      PORT: '8080',
      RPC_TIMEOUT_MS: '2000',
      JWT_SECRET: 'a-secret-of-16-chars',
      OWN: '7',
      LOG_FORMAT: 'json',
    });
    expect(env).toMatchObject({
      PORT: 8080,
      HOST: '0.0.0.0',
      NATS_URL: 'nats://127.0.0.1:4222',
      RPC_TIMEOUT_MS: 2000,
      JWT_SECRET: 'a-secret-of-16-chars',
      OWN: 7,
      LOG_FORMAT: 'json',
      LOG_LEVEL: 'log',
    });
    expect(loadEnv(ComposedEnv, { JWT_SECRET: 'a-secret-of-16-chars', OWN: '1' }).PORT).toBe(4010);
  });

  it.each([
    ['the class’s own required variable', { JWT_SECRET: 'a-secret-of-16-chars' }, /OWN/],
    ['a group’s required variable', { OWN: '1' }, /JWT_SECRET/],
    [
      'a group’s malformed number',
      { JWT_SECRET: 'a-secret-of-16-chars', OWN: '1', PORT: 'x' },
      /PORT: PORT must be an integer/,
    ],
    [
      'an inherited bound',
      { JWT_SECRET: 'a-secret-of-16-chars', OWN: '1', RPC_TIMEOUT_MS: '1' },
      /RPC_TIMEOUT_MS/,
    ],
    ['an inherited choice', { JWT_SECRET: 'a-secret-of-16-chars', OWN: '1', LOG_LEVEL: 'loud' }, /LOG_LEVEL/],
  ])('stops on %s', (_case, source, message) => {
    expect(() => loadEnv(ComposedEnv, source)).toThrow(EnvValidationError);
    expect(() => loadEnv(ComposedEnv, source)).toThrow(message);
  });
});
