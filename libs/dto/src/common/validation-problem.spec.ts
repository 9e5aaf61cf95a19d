import { plainToInstance } from 'class-transformer';
import {
  ArrayMaxSize,
  IsDefined,
  IsEmail,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateBy,
  ValidateNested,
  validateSync,
  ValidationError,
} from 'class-validator';
import { Type } from 'class-transformer';
import { NestedObject, NestedObjectArray } from './nested-object';
import { firstValidationProblem, ValidationProblem } from './validation-problem';

class Leaf {
  @IsInt()
  @Min(1)
  @Max(10)
  size!: number;
}

/** A custom check that names a part of the value it looked into, as the repo's content validators do. */
const NamesTheBadPart = () =>
  ValidateBy({
    name: 'namesTheBadPart',
    validator: {
      validate: (value) => value === 'ok',
      defaultMessage: (args) => `${args?.property}[2].kind must be ok`,
    },
  });

class Root {
  @IsString()
  @IsNotEmpty()
  @MaxLength(5)
  name!: string;

  @IsOptional()
  @IsString()
  @IsEmail()
  @MaxLength(20)
  email?: string;

  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;

  @IsOptional()
  @ArrayMaxSize(2)
  @NestedObjectArray(() => Leaf)
  leaves?: Leaf[];

  @IsOptional()
  @NestedObject(() => Leaf)
  leaf?: Leaf;

  @IsOptional()
  @ValidateNested()
  @Type(() => Leaf)
  loose?: Leaf;

  @IsOptional()
  @NamesTheBadPart()
  parts?: string;

  @IsDefined({ message: '$property is required' })
  @IsNotEmpty()
  code!: string;
}

function problemOf(body: Record<string, unknown>): ValidationProblem | null {
  return firstValidationProblem(
    validateSync(plainToInstance(Root, body), { whitelist: true, forbidNonWhitelisted: true }),
  );
}

const valid = { name: 'ada', code: 'x' };

describe('firstValidationProblem', () => {
  it('finds nothing in a valid body', () => {
    expect(problemOf(valid)).toBeNull();
  });

  it.each<[string, Record<string, unknown>, ValidationProblem]>([
    ['a missing field is missing, not too long', {}, { param: 'name', message: 'name is required' }],
    [
      'a field of the wrong type is that, not too long',
      { name: 5 },
      { param: 'name', message: 'name must be a string' },
    ],
    [
      'a number where an email belongs is not a string, not too long',
      { ...valid, email: 123 },
      { param: 'email', message: 'email must be a string' },
    ],
    [
      'a string where an integer belongs is not an integer, not out of range',
      { ...valid, limit: 'abc' },
      { param: 'limit', message: 'limit must be an integer number' },
    ],
    [
      'a repeated query parameter (an array) is not an integer',
      { ...valid, limit: ['1', '2'] },
      { param: 'limit', message: 'limit must be an integer number' },
    ],
    [
      'an object where an array belongs is not an array, not too long',
      { ...valid, leaves: { a: 1 } },
      { param: 'leaves', message: 'leaves must be an array' },
    ],
    [
      'a range fault once the type is right',
      { ...valid, limit: 101 },
      { param: 'limit', message: 'limit must not be greater than 100' },
    ],
    [
      'an unknown field before any other fault',
      { ...valid, name: 5, extra: 1 },
      { param: 'extra', message: 'property extra should not exist' },
    ],
    [
      'an absent field as required, not as empty',
      { name: 'ada' },
      { param: 'code', message: 'code is required' },
    ],
    [
      'a nested field by its whole path',
      { ...valid, leaf: { size: 0 } },
      { param: 'leaf.size', message: 'leaf.size must not be less than 1' },
    ],
    [
      'a nested field of an item by its index',
      { ...valid, leaves: [{ size: 1 }, { size: 'big' }] },
      { param: 'leaves[1].size', message: 'leaves[1].size must be an integer number' },
    ],
    [
      'an item that is not an object by its index',
      { ...valid, leaves: [{ size: 1 }, []] },
      { param: 'leaves[1]', message: 'leaves[1] must be an object' },
    ],
    [
      'an array where an object belongs',
      { ...valid, leaf: [{ size: 1 }] },
      { param: 'leaf', message: 'leaf must be an object' },
    ],
    [
      'a primitive where a plain nested object belongs',
      { ...valid, loose: 3 },
      { param: 'loose', message: 'loose must be an object' },
    ],
    [
      'the part a custom check names inside the value',
      { ...valid, parts: 'bad' },
      { param: 'parts[2].kind', message: 'parts[2].kind must be ok' },
    ],
  ])('reports %s', (_label, body, problem) => {
    expect(problemOf(body)).toEqual(problem);
  });

  it('reports nothing for no errors', () => {
    expect(firstValidationProblem([])).toBeNull();
  });

  it('maps a property name of any length without building a pattern from it', () => {
    const name = 'k'.repeat(100_000);
    const error = Object.assign(new ValidationError(), {
      property: name,
      constraints: { whitelistValidation: `property ${name} should not exist` },
      children: [],
    });
    expect(firstValidationProblem([error])).toEqual({
      param: name,
      message: `property ${name} should not exist`,
    });
  });
});
