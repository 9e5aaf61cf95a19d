import { DomainError } from '@gw/contracts';
import { InMemoryRateLimitStore } from '@gw/platform';
import type { Response } from 'express';
import {
  guessBackoffs,
  type GuessLimits,
  LoginThrottle,
  OperatorThrottle,
} from './credential-attempt-throttle';

const LIMITS: GuessLimits = {
  freeFailures: { address: 20, guesser: 5, account: 5 },
  baseDelayMs: 1_000,
  maxDelayMs: 900_000,
};

function response(): Response & { retryAfter?: string } {
  const fake = {
    setHeader(name: string, value: string) {
      if (name === 'Retry-After') fake.retryAfter = value;
      return fake;
    },
  } as Response & { retryAfter?: string };
  return fake;
}

describe('LoginThrottle', () => {
  let throttle: LoginThrottle;
  const PASSWORD = 'the right password';
  const EMAIL = 'owner@example.com';

  beforeEach(() => {
    throttle = new LoginThrottle(guessBackoffs(new InMemoryRateLimitStore(), LIMITS));
  });

  /** The status a login answers: 200, 401 for a wrong password, 429 when the throttle refuses. */
  async function login(address: string, password: string, email = EMAIL): Promise<number> {
    try {
      await throttle.attempt(address, email, response(), async () => {
        if (password !== PASSWORD) throw new DomainError('unauthorized', 'Invalid email or password');
        return 'token';
      });
      return 200;
    } catch (err) {
      return (err as DomainError).code === 'rate_limited' ? 429 : 401;
    }
  }

  it('slows an address that guesses one account after its free failures', async () => {
    const statuses = [];
    for (let i = 0; i < 7; i++) statuses.push(await login('198.51.100.1', `guess ${i}`));
    expect(statuses).toEqual([401, 401, 401, 401, 401, 401, 429]);
  });

  it('lets the owner in from an address that did not guess, whatever was guessed elsewhere', async () => {
    for (let i = 0; i < 7; i++) await login('198.51.100.1', `guess ${i}`);
    for (let i = 0; i < 200; i++) await login(`10.0.${Math.floor(i / 250)}.${i % 250}`, `guess ${i}`);
    for (let i = 0; i < 5; i++) expect(await login(`192.0.2.${i}`, PASSWORD)).toBe(200);
  });

  it('makes every address back off from its first failure while the account is under attack', async () => {
    for (let i = 0; i < 6; i++) expect(await login(`10.0.0.${i}`, 'guess')).toBe(401);
    expect(await login('10.0.1.1', 'guess')).toBe(401);
    expect(await login('10.0.1.1', 'guess')).toBe(429);
    // Another account from the same address is not under attack.
    expect(await login('10.0.1.1', 'guess', 'someone@example.com')).toBe(401);
    expect(await login('10.0.1.1', 'guess', 'someone@example.com')).toBe(401);
  });

  /** Guesses from `address` after each refusal's Retry-After has passed; the waits it was told. */
  async function waitsOf(
    address: string,
    guesses: number,
    email: (i: number) => string = () => EMAIL,
  ): Promise<string[]> {
    jest.useFakeTimers({ now: Date.now() });
    try {
      const waits = [];
      for (let i = 0; i < guesses; i++) {
        const refused = response();
        await throttle
          .attempt(address, email(i), refused, () =>
            Promise.reject(new DomainError('unauthorized', 'Invalid email or password')),
          )
          .catch(() => undefined);
        if (refused.retryAfter === undefined) continue;
        waits.push(refused.retryAfter);
        jest.setSystemTime(Date.now() + Number(refused.retryAfter) * 1_000);
      }
      return waits;
    } finally {
      jest.useRealTimers();
    }
  }

  it('tells an address how long to wait, doubling with each failure', async () => {
    expect(await waitsOf('198.51.100.1', 27, (i) => `user${i}@example.com`)).toEqual(['1', '2', '4']);
  });

  it("counts an address's failures on an account under attack without free ones", async () => {
    // The sixth failure puts the account under attack; the seventh is this address's seventh.
    expect(await waitsOf('198.51.100.1', 11)).toEqual(['1', '64', '128']);
  });

  it('does not count an attempt that says nothing about the password', async () => {
    for (let i = 0; i < 10; i++) {
      await expect(
        throttle.attempt('198.51.100.1', EMAIL, response(), () =>
          Promise.reject(new DomainError('service_unavailable', 'auth is down')),
        ),
      ).rejects.toMatchObject({ code: 'service_unavailable' });
    }
    expect(await login('198.51.100.1', PASSWORD)).toBe(200);
  });

  it('slows an address that guesses many accounts after its own free failures', async () => {
    const statuses = [];
    for (let i = 0; i < 22; i++) statuses.push(await login('198.51.100.1', 'guess', `user${i}@example.com`));
    expect(statuses.slice(0, 21)).toEqual(Array.from({ length: 21 }, () => 401));
    expect(statuses[21]).toBe(429);
  });
});

describe('OperatorThrottle', () => {
  let throttle: OperatorThrottle;
  const free = { address: 20, guesser: 20, account: 20 };

  beforeEach(() => {
    throttle = new OperatorThrottle(
      guessBackoffs(new InMemoryRateLimitStore(), { ...LIMITS, freeFailures: free }),
    );
  });

  /** A request with a wrong token: 401, or 429 when its address must wait. */
  async function guess(address: string): Promise<number> {
    try {
      await throttle.check(address, response());
    } catch {
      return 429;
    }
    await throttle.failed(address);
    return 401;
  }

  const admitted = async (address: string) =>
    throttle.check(address, response()).then(
      () => true,
      () => false,
    );

  it('never refuses an address that did not guess, after a hundred guesses from others', async () => {
    for (let round = 0; round < 20; round++) for (let i = 0; i < 5; i++) await guess(`203.0.113.${i}`);
    expect(await admitted('198.51.100.7')).toBe(true);
  });

  it('slows each guessing address from its first failure once the operator account is under attack', async () => {
    const first = [];
    for (let i = 0; i < 25; i++) first.push(await guess(`203.0.113.${i}`));
    expect(first).toEqual(Array.from({ length: 25 }, () => 401));
    expect(await guess('203.0.113.24')).toBe(429);
    expect(await guess('203.0.113.0')).toBe(401);
    expect(await guess('203.0.113.0')).toBe(429);
  });

  it('slows one address after its own free failures', async () => {
    const statuses = [];
    for (let i = 0; i < 22; i++) statuses.push(await guess('203.0.113.1'));
    expect(statuses.slice(0, 21)).toEqual(Array.from({ length: 21 }, () => 401));
    expect(statuses[21]).toBe(429);
  });
});
