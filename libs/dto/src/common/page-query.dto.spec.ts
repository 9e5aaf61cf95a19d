import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { HistoryQueryDto } from '../history/history-query.dto';
import { ListStoredFilesQueryDto } from '../storage/list-stored-files-query.dto';
import { MAX_PAGE, MAX_PAGE_SIZE, type PageQueryDto } from './page-query.dto';
import { firstValidationProblem, type ValidationProblem } from './validation-problem';

/** A query as Express parses it: strings, and an array for a repeated parameter. */
type Query = Record<string, string | string[] | number>;

describe.each<new () => PageQueryDto>([HistoryQueryDto, ListStoredFilesQueryDto])(
  '%p page and limit',
  (Dto) => {
    const parse = (query: Query) => {
      const instance = plainToInstance(Dto, query);
      return {
        instance,
        problem: firstValidationProblem(
          validateSync(instance, { whitelist: true, forbidNonWhitelisted: true }),
        ),
      };
    };

    it.each<[Query, { page: number; limit: number }]>([
      [{}, { page: 1, limit: 20 }],
      [
        { page: '3', limit: '50' },
        { page: 3, limit: 50 },
      ],
      [
        { page: String(MAX_PAGE), limit: String(MAX_PAGE_SIZE) },
        { page: MAX_PAGE, limit: MAX_PAGE_SIZE },
      ],
      [
        { page: 2, limit: 5 },
        { page: 2, limit: 5 },
      ],
    ])('reads %j as %j', (query, expected) => {
      const { instance, problem } = parse(query);
      expect(problem).toBeNull();
      expect({ page: instance.page, limit: instance.limit }).toEqual(expected);
    });

    it.each<[string, Query, ValidationProblem]>([
      [
        'a page whose offset would overflow bigint',
        { page: '99999999999999999999' },
        { param: 'page', message: `page must not be greater than ${MAX_PAGE}` },
      ],
      [
        'a page just above the bound',
        { page: '461168601842738790', limit: '100' },
        { param: 'page', message: `page must not be greater than ${MAX_PAGE}` },
      ],
      ['page 0', { page: '0' }, { param: 'page', message: 'page must not be less than 1' }],
      [
        'a limit above 100',
        { limit: '101' },
        { param: 'limit', message: 'limit must not be greater than 100' },
      ],
      [
        'a limit that is no number',
        { limit: 'abc' },
        { param: 'limit', message: 'limit must be an integer number' },
      ],
      ['a fractional page', { page: '1.5' }, { param: 'page', message: 'page must be an integer number' }],
      [
        'a repeated limit',
        { limit: ['1', '2'] },
        { param: 'limit', message: 'limit must be an integer number' },
      ],
      ['a repeated page', { page: ['1', '2'] }, { param: 'page', message: 'page must be an integer number' }],
      [
        'a page given as an array of one',
        { page: ['5'] },
        { param: 'page', message: 'page must be an integer number' },
      ],
    ])('refuses %s', (_label, query, problem) => {
      expect(parse(query).problem).toEqual(problem);
    });

    it('keeps the largest offset a safe integer', () => {
      expect(Number.isSafeInteger((MAX_PAGE - 1) * MAX_PAGE_SIZE)).toBe(true);
    });
  },
);
