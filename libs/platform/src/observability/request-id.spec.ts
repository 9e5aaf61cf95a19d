import { acceptRequestId } from './request-id';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('acceptRequestId', () => {
  it("keeps a client's well-formed id", () => {
    expect(acceptRequestId('my-id-123')).toBe('my-id-123');
    expect(acceptRequestId('trace:01.A_b-2')).toBe('trace:01.A_b-2');
    expect(acceptRequestId('x'.repeat(128))).toBe('x'.repeat(128));
  });

  it.each([
    [undefined],
    [''],
    ['x'.repeat(129)],
    ['two words'],
    ['line\nbreak'],
    ['{"json":1}'],
    [['a', 'b']],
  ])('replaces %j by a new id', (value) => {
    expect(acceptRequestId(value)).toMatch(UUID);
  });
});
