import { expectEventually } from './expect-eventually';

describe('expectEventually', () => {
  it('returns the value once the assertion stops throwing', async () => {
    let calls = 0;
    const value = await expectEventually(
      () => {
        calls += 1;
        if (calls < 3) throw new Error('not yet');
        return calls;
      },
      { intervalMs: 1 },
    );
    expect(value).toBe(3);
  });

  it('rethrows the last failure once the time is up', async () => {
    const started = Date.now();
    await expect(
      expectEventually(
        () => {
          throw new Error('never');
        },
        { timeoutMs: 60, intervalMs: 10 },
      ),
    ).rejects.toThrow('never');
    expect(Date.now() - started).toBeGreaterThanOrEqual(60);
  });
});
