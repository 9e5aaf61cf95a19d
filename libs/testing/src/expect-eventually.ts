export interface EventuallyOptions {
  timeoutMs?: number;
  intervalMs?: number;
}

/** Polls `assertion` until it stops throwing, or rethrows its last failure after `timeoutMs`. */
export async function expectEventually<T>(
  assertion: () => T | Promise<T>,
  options: EventuallyOptions = {},
): Promise<T> {
  const { timeoutMs = 10_000, intervalMs = 50 } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await assertion();
    } catch (err) {
      if (Date.now() >= deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  }
}
