import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { AddCreditsDto } from '../billing/add-credits.dto';
import { firstValidationProblem, type ValidationProblem } from '../common/validation-problem';
import { AdminCreateApiKeyDto, CreateApiKeyDto, SetApiKeyLimitsDto } from './api-key.dto';
import { LoginDto } from './login.dto';
import { CreateOrganizationDto } from './organization.dto';
import { CreateUserDto } from './user.dto';

type Dto = new () => object;

function problemOf(dto: Dto, body: Record<string, unknown>): ValidationProblem | null {
  return firstValidationProblem(
    validateSync(plainToInstance(dto, body), { whitelist: true, forbidNonWhitelisted: true }),
  );
}

const user = { email: 'ada@example.com', password: 'correct horse battery', name: 'Ada Lovelace' };

describe('operator and console requests stored in Postgres', () => {
  it.each<[string, Dto, Record<string, unknown>]>([
    ['an organization', CreateOrganizationDto, { name: 'Acme' }],
    ['a user', CreateUserDto, user],
    [
      'an API key with limits',
      CreateApiKeyDto,
      { name: ' backend ', limits: [{ period: 'day', amount: '10.00' }] },
    ],
    [
      'an API key for a member',
      AdminCreateApiKeyDto,
      { name: 'ci', userId: '0b6c3c1e-6f0a-4b8e-9d43-3f1f0f8a9c21' },
    ],
    ['credits with a reason', AddCreditsDto, { amount: '100.00', reason: 'Invoice 2026-11-001' }],
  ])('accepts %s', (_label, dto, body) => {
    expect(problemOf(dto, body)).toBeNull();
  });

  it.each<[string, Dto, Record<string, unknown>, ValidationProblem]>([
    [
      'a blank organization name',
      CreateOrganizationDto,
      { name: '   ' },
      { param: 'name', message: 'name must contain a non-space character' },
    ],
    [
      'an organization name of tabs and newlines',
      CreateOrganizationDto,
      { name: '\t\n' },
      { param: 'name', message: 'name must contain a non-space character' },
    ],
    [
      'an organization name with NUL',
      CreateOrganizationDto,
      { name: 'a\u0000b' },
      { param: 'name', message: 'name must not contain NUL characters' },
    ],
    [
      'an organization name that is a number',
      CreateOrganizationDto,
      { name: 5 },
      { param: 'name', message: 'name must be a string' },
    ],
    [
      'a blank user name',
      CreateUserDto,
      { ...user, name: ' ' },
      { param: 'name', message: 'name must contain a non-space character' },
    ],
    [
      'a user name with NUL',
      CreateUserDto,
      { ...user, name: 'Ada\u0000' },
      { param: 'name', message: 'name must not contain NUL characters' },
    ],
    [
      'an email that is a number',
      CreateUserDto,
      { ...user, email: 123 },
      { param: 'email', message: 'email must be a string' },
    ],
    [
      'an email with NUL',
      CreateUserDto,
      { ...user, email: 'ada\u0000@example.com' },
      { param: 'email', message: 'email must be an email' },
    ],
    [
      'a login email that is a number',
      LoginDto,
      { email: 123, password: 'x' },
      { param: 'email', message: 'email must be a string' },
    ],
    [
      'a blank API key name',
      CreateApiKeyDto,
      { name: '  ' },
      { param: 'name', message: 'name must contain a non-space character' },
    ],
    [
      'an API key name with NUL',
      AdminCreateApiKeyDto,
      { name: '\u0000' },
      { param: 'name', message: 'name must not contain NUL characters' },
    ],
    [
      'a limit that is an array',
      SetApiKeyLimitsDto,
      { limits: [[]] },
      { param: 'limits[0]', message: 'limits[0] must be an object' },
    ],
    [
      'a credit reason with NUL',
      AddCreditsDto,
      { amount: '1', reason: 'a\u0000' },
      { param: 'reason', message: 'reason must not contain NUL characters' },
    ],
  ])('refuses %s', (_label, dto, body, problem) => {
    expect(problemOf(dto, body)).toEqual(problem);
  });
});
