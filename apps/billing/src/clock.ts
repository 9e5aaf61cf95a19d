/** Billing reads the time through this, so tests can cross a UTC window boundary without sleeping. */
export interface Clock {
  now(): Date;
}

export const BILLING_CLOCK = Symbol('BILLING_CLOCK');

export const systemClock: Clock = { now: () => new Date() };
