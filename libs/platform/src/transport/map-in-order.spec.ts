import { concat, delay, lastValueFrom, type Observable, of, throwError, toArray } from 'rxjs';
import { mapInOrder } from './claim-checks';

/** The values a stream delivered before it ended, and its error. */
function collect<T>(stream: Observable<T>): Promise<{ values: T[]; error: unknown }> {
  const values: T[] = [];
  return new Promise((resolve) =>
    stream.subscribe({
      next: (value) => values.push(value),
      error: (error: unknown) => resolve({ values, error }),
      complete: () => resolve({ values, error: null }),
    }),
  );
}

describe('mapInOrder', () => {
  it("lets an error through only after the values before it, however long each one's step takes", async () => {
    const source = concat(
      of(1, 2, 3),
      throwError(() => new Error('broken off')),
    );
    const result = await collect(source.pipe(mapInOrder((n) => of(n * 10).pipe(delay(10 - n)))));
    expect(result.values).toEqual([10, 20, 30]);
    expect(result.error).toEqual(new Error('broken off'));
  });

  it('completes after the last value, and passes the error of a step on', async () => {
    await expect(
      lastValueFrom(
        of(1, 2).pipe(
          mapInOrder((n) => of(n).pipe(delay(5))),
          toArray(),
        ),
      ),
    ).resolves.toEqual([1, 2]);
    const failing = await collect(
      of(1, 2).pipe(mapInOrder((n) => (n === 2 ? throwError(() => 'staging') : of(n)))),
    );
    expect(failing).toEqual({ values: [1], error: 'staging' });
  });
});
