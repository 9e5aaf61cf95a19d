import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';

export const MAX_PAGE_SIZE = 100;
/**
 * With MAX_PAGE_SIZE this keeps the row offset `(page - 1) * limit` below 10^9: a safe integer,
 * far inside Postgres bigint, so no page number reaches the database as an overflow.
 */
export const MAX_PAGE = 10_000_000;

/**
 * A query string carries digits; anything else stays as it came for `@IsInt` to refuse as a type
 * error (a repeated parameter arrives as an array, which `Number()` would turn into NaN or, for
 * one item, quietly into that item). A message between services carries the number itself.
 */
function toQueryInteger({ value }: { value: unknown }): unknown {
  return typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : value;
}

/** `page` and `limit` of the interface's paged lists (history, storage). */
export class PageQueryDto {
  @ApiPropertyOptional({ type: 'integer', default: 1, minimum: 1, maximum: MAX_PAGE, example: 1 })
  @Transform(toQueryInteger)
  @IsInt()
  @Min(1)
  @Max(MAX_PAGE)
  page = 1;

  @ApiPropertyOptional({ type: 'integer', default: 20, minimum: 1, maximum: MAX_PAGE_SIZE, example: 20 })
  @Transform(toQueryInteger)
  @IsInt()
  @Min(1)
  @Max(MAX_PAGE_SIZE)
  limit = 20;
}
