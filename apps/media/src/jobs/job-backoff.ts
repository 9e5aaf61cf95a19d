/** How often a job asks about a provider's work: soon at first, then less and less often. */
export interface BackoffSettings {
  firstDelayMs: number;
  maxDelayMs: number;
}

/**
 * The wait before the `step`th ask (0-based): doubling from firstDelayMs up to maxDelayMs, with
 * up to a tenth taken off at random so that jobs created together do not poll together.
 */
export function backoffDelayMs(
  settings: BackoffSettings,
  step: number,
  random: () => number = Math.random,
): number {
  const exponent = Math.min(Math.max(step, 0), 30);
  const delay = Math.min(settings.maxDelayMs, settings.firstDelayMs * 2 ** exponent);
  return Math.max(1, Math.round(delay * (1 - random() * 0.1)));
}
