import { Observable, type OperatorFunction, TimeoutError } from 'rxjs';

/**
 * Fails with rxjs's TimeoutError when `limitMs` pass before the first value or between two values.
 * rxjs's `timeout({ each })` clears and sets a timer per value; a streamed answer has a value per
 * token, so here a value only notes the time, and the one timer, when it fires early, is set again
 * for what is left of the silence (decision 179).
 */
export function idleTimeout<T>(limitMs: number): OperatorFunction<T, T> {
  return (source) =>
    new Observable<T>((subscriber) => {
      let lastValueAt = Date.now();
      const check = () => {
        const silentFor = Date.now() - lastValueAt;
        if (silentFor >= limitMs) return subscriber.error(new TimeoutError());
        timer = setTimeout(check, limitMs - silentFor);
      };
      let timer = setTimeout(check, limitMs);
      const subscription = source.subscribe({
        next: (value) => {
          lastValueAt = Date.now();
          subscriber.next(value);
        },
        error: (err: unknown) => subscriber.error(err),
        complete: () => subscriber.complete(),
      });
      return () => {
        clearTimeout(timer);
        subscription.unsubscribe();
      };
    });
}
