import { findJsonHazard } from './json-hazards';

describe('findJsonHazard', () => {
  it.each<[string, unknown, string | null]>([
    ['clean input', { name: 'acme', tags: ['a', 'b'], n: 1, nested: { ok: true }, none: null }, null],
    ['a NUL in a top-level field', { name: 'a\u0000b' }, 'name'],
    ['a NUL in a nested array item', { provider: { only: ['Mock Alpha', 'x\u0000'] } }, 'provider.only[1]'],
    [
      'a NUL in an object of an array',
      { messages: [{ content: 'hi' }, { content: '\u0000' }] },
      'messages[1].content',
    ],
    ['a NUL in a key', { metadata: { 'k\u0000': 'v' } }, 'metadata.k\u0000'],
    ['a bare string with a NUL', 'x\u0000', ''],
    [
      'a constructor key deep in a tool schema',
      { tools: [{ function: { parameters: { properties: { constructor: {} } } } }] },
      'tools[0].function.parameters.properties.constructor',
    ],
    ['a __proto__ key', JSON.parse('{"metadata":{"__proto__":{"x":1}}}'), 'metadata.__proto__'],
    ['a key that merely contains the word', { constructorName: 'x', prototype: 1 }, null],
  ])('%s', (_name, value, expectedPath) => {
    expect(findJsonHazard(value)?.path ?? null).toBe(expectedPath);
  });

  it('names the field in the message', () => {
    expect(findJsonHazard({ reason: 'a\u0000' })?.message).toBe('reason must not contain NUL characters');
  });
});
