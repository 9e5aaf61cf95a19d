import { IsInt, IsOptional, IsString, Max, Min, MinLength } from 'class-validator';
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
