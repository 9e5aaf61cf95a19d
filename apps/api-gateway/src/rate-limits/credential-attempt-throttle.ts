import { DomainError } from '@gw/contracts';
import { FailureBackoff, type RateLimitStore } from '@gw/platform';
import type { Response } from 'express';
import { tooManyRequests } from './too-many-requests';

/**
 * The backoffs of guessing one kind of secret (DESIGN.md §2: guessing slows the guesser, never the
 * owner). Only a guesser waits: a client address, or an address together with the account it
 * guesses. An account's own count over every address refuses nobody; while it is over its bound
 * (its backoff runs), the account is under attack and each address guessing it backs off from its
 * first failure instead of after the free ones. So a right credential from an address that has not
 * guessed is never refused, whatever others did.
 */
export interface GuessBackoffs {
  /** Per client address, over every account. */
  address: FailureBackoff;
  /** Per address and account while the account is not under attack. */
  guesser: FailureBackoff;
  /** The same records while it is: no free failures. */
  suspectGuesser: FailureBackoff;
  /** Per account over every address; its wait is the time the account stays under attack. */
  account: FailureBackoff;
}

/** Failures of an account or an address are forgotten an hour after the last one. */
const FAILURE_MEMORY_MS = 60 * 60_000;

export interface GuessLimits {
  /** Free failures of one address, of the address on one account, and of one account. */
  freeFailures: { address: number; guesser: number; account: number };
  /** The first wait after the free failures; it doubles with each further one, up to `maxDelayMs`. */
  baseDelayMs: number;
  maxDelayMs: number;
}

/**
 * The backoffs of one kind of guessing in one store. The suspect guesser is the guesser's record
 * without free failures, and the account's wait is a fixed `maxDelayMs`: an account stays under
 * attack that long after its last failure beyond the free ones.
 */
export function guessBackoffs(store: RateLimitStore, limits: GuessLimits): GuessBackoffs {
  const backoff = (freeFailures: number, baseDelayMs = limits.baseDelayMs): FailureBackoff =>
    new FailureBackoff(store, {
      freeFailures,
      baseDelayMs,
      maxDelayMs: limits.maxDelayMs,
      memoryMs: Math.max(FAILURE_MEMORY_MS, limits.maxDelayMs),
    });
  return {
    address: backoff(limits.freeFailures.address),
    guesser: backoff(limits.freeFailures.guesser),
    suspectGuesser: backoff(0),
    account: backoff(limits.freeFailures.account, limits.maxDelayMs),
  };
}

/**
 * Password guessing on console login: every attempt counts as a failure of its client address and
 * of that address on the account before it is tried, so parallel guesses cannot all slip through
 * before the first failure is recorded. A right password clears the address's record of the account
 * and takes the attempt back from the address; a wrong one stays counted, and counts for the account.
 */
export class LoginThrottle {
  constructor(private readonly backoffs: GuessBackoffs) {}

  async attempt<T>(address: string, email: string, response: Response, login: () => Promise<T>): Promise<T> {
    const account = email.trim().toLowerCase();
    const addressKey = `login:address:${address}`;
    const accountKey = `login:account:${account}`;
    const guesserKey = `login:account:${account}:address:${address}`;
    const [underAttack, addressWait] = await Promise.all([
      this.backoffs.account.waitFor(accountKey).then((wait) => wait > 0),
      this.backoffs.address.attempt(addressKey),
    ]);
    if (addressWait > 0) throw tooManyRequests(response, addressWait);
    const guesser = underAttack ? this.backoffs.suspectGuesser : this.backoffs.guesser;
    const guesserWait = await guesser.attempt(guesserKey);
    // The address's attempt stays counted: it kept guessing while told to wait.
    if (guesserWait > 0) throw tooManyRequests(response, guesserWait);
    try {
      const result = await login();
      await this.cleared(guesserKey, addressKey);
      return result;
    } catch (err) {
      const code = err instanceof DomainError ? err.code : null;
      // A wrong password stays counted, and counts for the account; `forbidden` follows a right one;
      // anything else (auth down, a timeout) says nothing about the password and slows nobody down.
      if (code === 'unauthorized') await this.backoffs.account.fail(accountKey);
      else if (code === 'forbidden') await this.cleared(guesserKey, addressKey);
      else
        await Promise.all([
          this.backoffs.guesser.forgive(guesserKey),
          this.backoffs.address.forgive(addressKey),
        ]);
      throw err;
    }
  }

  /** A right password: the address's failures on the account go, the attempt is taken back from the address. */
  private async cleared(guesserKey: string, addressKey: string): Promise<void> {
    await Promise.all([this.backoffs.guesser.reset(guesserKey), this.backoffs.address.forgive(addressKey)]);
  }
}

/**
 * Token guessing on the operator API: only failures are counted (operator requests are frequent and
 * may run in parallel), per client address; the one operator account is the account of
 * GuessBackoffs, whose failures over every address make each guessing address back off from its
 * first failure. An address that has not failed is never refused.
 */
export class OperatorThrottle {
  private static readonly ACCOUNT_KEY = 'operator:account';

  constructor(private readonly backoffs: Pick<GuessBackoffs, 'guesser' | 'suspectGuesser' | 'account'>) {}

  async check(address: string, response: Response): Promise<void> {
    const wait = await this.backoffs.guesser.waitFor(addressKey(address));
    if (wait > 0) throw tooManyRequests(response, wait);
  }

  async failed(address: string): Promise<void> {
    const underAttack = (await this.backoffs.account.waitFor(OperatorThrottle.ACCOUNT_KEY)) > 0;
    const guesser = underAttack ? this.backoffs.suspectGuesser : this.backoffs.guesser;
    await Promise.all([
      guesser.fail(addressKey(address)),
      this.backoffs.account.fail(OperatorThrottle.ACCOUNT_KEY),
    ]);
  }
}

function addressKey(address: string): string {
  return `operator:address:${address}`;
}
