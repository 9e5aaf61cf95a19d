import { type HistoryQuery, type Principal } from '@gw/contracts';
import { buildHistoryFilter } from './history-filter';

const organizationId = '3f0c2a4e-8d1b-4f7a-9c7e-2b5d6e8f9a01';
const apiKeyId = '6c1e7a52-1d4b-4a8e-9f0a-3b2c1d0e9f87';
const user: Principal = {
  kind: 'user',
  organizationId,
  userId: 'a0000000-0000-4000-8000-000000000001',
  role: 'member',
};
const key: Principal = {
  kind: 'api_key',
  organizationId,
  apiKeyId,
  apiKeyName: 'prod',
  apiKeyShort: 'abcdef',
  userId: null,
};
const defaults: HistoryQuery = { page: 1, limit: 20, sortBy: 'createdAt', sortOrder: 'desc' };

describe('buildHistoryFilter', () => {
  it('scopes a user to the organization and applies the interface defaults', () => {
    expect(buildHistoryFilter(user, defaults)).toEqual({
      organizationId,
      sortBy: 'createdAt',
      sortOrder: 'DESC',
      offset: 0,
      limit: 20,
      page: 1,
    });
  });

  it('scopes an API key to its own generations', () => {
    expect(buildHistoryFilter(key, defaults)).toMatchObject({ organizationId, apiKeyId });
  });

  it.each([
    ['apiKeyId', { apiKeyId }],
    ['withoutApiKey', { withoutApiKey: true }],
    ['withoutApiKey', { withoutApiKey: false }],
  ])('refuses %s from an API key with forbidden', (param, extra) => {
    expect(() => buildHistoryFilter(key, { ...defaults, ...extra })).toThrow(
      expect.objectContaining({ code: 'forbidden', param }),
    );
  });

  it('lets a user pick one key or the generations without a key, but not both', () => {
    expect(buildHistoryFilter(user, { ...defaults, apiKeyId }).apiKeyId).toBe(apiKeyId);
    expect(buildHistoryFilter(user, { ...defaults, withoutApiKey: true }).apiKeyId).toBeNull();
    expect(buildHistoryFilter(user, { ...defaults, withoutApiKey: false })).not.toHaveProperty('apiKeyId');
    expect(() => buildHistoryFilter(user, { ...defaults, apiKeyId, withoutApiKey: true })).toThrow(
      expect.objectContaining({ code: 'invalid_request' }),
    );
  });

  it('turns page and limit into an offset and the sort into SQL order', () => {
    expect(
      buildHistoryFilter(user, { ...defaults, page: 3, limit: 25, sortBy: 'clientCost', sortOrder: 'asc' }),
    ).toMatchObject({
      offset: 50,
      limit: 25,
      page: 3,
      sortBy: 'clientCost',
      sortOrder: 'ASC',
    });
  });

  it('keeps a date-time bound inclusive and extends a bare date, month or year to its end', () => {
    expect(
      buildHistoryFilter(user, {
        ...defaults,
        dateFrom: '2026-11-01T10:00:00Z',
        dateTo: '2026-11-02T10:00:00Z',
      }),
    ).toMatchObject({
      createdFrom: new Date('2026-11-01T10:00:00Z'),
      createdTo: { at: new Date('2026-11-02T10:00:00Z'), inclusive: true },
    });
    expect(buildHistoryFilter(user, { ...defaults, dateTo: '2026-11-30' }).createdTo).toEqual({
      at: new Date('2026-12-01T00:00:00Z'),
      inclusive: false,
    });
    expect(buildHistoryFilter(user, { ...defaults, dateTo: '2026-12' }).createdTo?.at).toEqual(
      new Date('2027-01-01T00:00:00Z'),
    );
    expect(buildHistoryFilter(user, { ...defaults, dateTo: '2026' }).createdTo?.at).toEqual(
      new Date('2027-01-01T00:00:00Z'),
    );
  });

  it('refuses an inverted range and a date JavaScript cannot read', () => {
    expect(() =>
      buildHistoryFilter(user, { ...defaults, dateFrom: '2026-11-02', dateTo: '2026-11-01T00:00:00Z' }),
    ).toThrow(expect.objectContaining({ code: 'invalid_request', param: 'dateFrom' }));
    expect(() => buildHistoryFilter(user, { ...defaults, dateFrom: '2026-W47' })).toThrow(
      expect.objectContaining({ code: 'invalid_request', param: 'dateFrom' }),
    );
  });
});
