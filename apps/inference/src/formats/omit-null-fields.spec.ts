import { omitNullFields } from './omit-null-fields';

describe('omitNullFields', () => {
  it.each<[string, Record<string, unknown>, Record<string, unknown>]>([
    [
      'a null field',
      { model: 'demo/embed-large', input: 'x', dimensions: null },
      { model: 'demo/embed-large', input: 'x' },
    ],
    ['every null field', { model: 'm', dimensions: null, user: null, encoding_format: null }, { model: 'm' }],
    ['nothing without nulls', { model: 'm', dimensions: 64 }, { model: 'm', dimensions: 64 }],
    [
      'false, 0 and empty values, which are values',
      { stream: false, temperature: 0, prompt: '', include: [] },
      { stream: false, temperature: 0, prompt: '', include: [] },
    ],
    [
      'nulls inside a value, which are the value',
      { input: ['a'], metadata: { note: null } },
      { input: ['a'], metadata: { note: null } },
    ],
  ])('leaves out %s', (_label, fields, expected) => {
    expect(omitNullFields(fields)).toEqual(expected);
  });

  it('leaves the fields it was given as they were', () => {
    const fields = { model: 'm', dimensions: null };
    omitNullFields(fields);
    expect(fields).toEqual({ model: 'm', dimensions: null });
  });
});
