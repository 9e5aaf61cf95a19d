import { Observable, Subject, TimeoutError, lastValueFrom, toArray } from 'rxjs';
import { idleTimeout } from './idle-timeout';

const paced = (values: number[], everyMs: number): Observable<number> =>
  new Observable((subscriber) => {
    let i = 0;
    const timer = setInterval(() => {
      if (i < values.length) subscriber.next(values[i++]);
      else subscriber.complete();
    }, everyMs);
    return () => clearInterval(timer);
  });

describe('idleTimeout', () => {
  it('lets a stream longer than the limit through while its values come within it', async () => {
    const values = await lastValueFrom(paced([1, 2, 3, 4, 5, 6, 7, 8], 15).pipe(idleTimeout(60), toArray()));
    expect(values).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('fails with TimeoutError when nothing comes for the limit, first value or later', async () => {
    const silent = new Subject<number>();
    await expect(lastValueFrom(silent.pipe(idleTimeout(40)))).rejects.toBeInstanceOf(TimeoutError);

    const stalls = new Subject<number>();
    const seen: number[] = [];
    const started = Date.now();
    const ended = lastValueFrom(stalls.pipe(idleTimeout(80))).catch((err: unknown) => err);
    for (const value of [1, 2, 3]) {
      await new Promise((resolve) => setTimeout(resolve, 30));
      seen.push(value);
      stalls.next(value);
    }
    expect(await ended).toBeInstanceOf(TimeoutError);
    // Measured from the last value (at about 90 ms), not from the subscription.
    expect(Date.now() - started).toBeGreaterThanOrEqual(160);
    expect(seen).toEqual([1, 2, 3]);
  });

  it('stops its timer when the source ends or the subscriber leaves', async () => {
    const source = new Subject<number>();
    const errors: unknown[] = [];
    const subscription = source
      .pipe(idleTimeout(20))
      .subscribe({ error: (err: unknown) => errors.push(err) });
    subscription.unsubscribe();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(source.observed).toBe(false);
    expect(errors).toEqual([]);
  });
});
