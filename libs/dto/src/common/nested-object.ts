import { applyDecorators } from '@nestjs/common';
import { Type } from 'class-transformer';
import { IsArray, IsObject, ValidateBy, ValidateNested } from 'class-validator';

/** A JSON object: not null, not an array. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A field holding one object of `type`, validated by that class's rules. `@ValidateNested` alone
 * takes an array too (it validates its items instead, so `[]` passes and the settings are dropped),
 * hence the object check before it. Combine with `@IsOptional()` or `@IsDefined()` as needed.
 */
export function NestedObject(type: () => new () => object): PropertyDecorator {
  return applyDecorators(IsObject({ message: '$property must be an object' }), ValidateNested(), Type(type));
}

function firstNonObject(items: unknown[]): number {
  return items.findIndex((item) => !isPlainObject(item));
}

/**
 * A field holding an array of objects of `type`. An item that is not an object is named by its
 * index (`messages[1] must be an object`): `@ValidateNested` would descend into an array item
 * rather than refuse it.
 */
export function NestedObjectArray(type: () => new () => object): PropertyDecorator {
  return applyDecorators(
    IsArray(),
    ValidateBy({
      name: 'isObjectItems',
      validator: {
        validate: (value) => !Array.isArray(value) || firstNonObject(value) === -1,
        defaultMessage: (args) =>
          `${args?.property}[${firstNonObject(args?.value as unknown[])}] must be an object`,
      },
    }),
    ValidateNested({ each: true }),
    Type(type),
  );
}
