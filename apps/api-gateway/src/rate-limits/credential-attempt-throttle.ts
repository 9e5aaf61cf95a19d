import { DomainError } from '@gw/contracts';
import type { FailureBackoff } from '@gw/platform';
import type { Response } from 'express';
import { tooManyRequests } from './too-many-requests';

/**
 * Password guessing on console login: every attempt counts as a failure of its client address and
 * of its account before it is tried, with an exponential, bounded backoff on each. A right password
 * clears the account and takes the attempt back from the address; a wrong one stays counted.
 */
export class LoginThrottle {
  constructor(
    private readonly addresses: FailureBackoff,
    private readonly accounts: FailureBackoff,
  ) {}

  async attempt<T>(address: string, email: string, response: Response, login: () => Promise<T>): Promise<T> {
    const addressKey = `login:address:${address}`;
    const accountKey = `login:account:${email.trim().toLowerCase()}`;
    const addressWait = await this.addresses.attempt(addressKey);
    if (addressWait > 0) throw tooManyRequests(response, addressWait);
    const accountWait = await this.accounts.attempt(accountKey);
    if (accountWait > 0) throw tooManyRequests(response, accountWait);
    try {
      const result = await login();
      await Promise.all([this.accounts.reset(accountKey), this.addresses.forgive(addressKey)]);
      return result;
    } catch (err) {
      await this.settleFailure(err, addressKey, accountKey);
      throw err;
    }
  }

  private async settleFailure(err: unknown, addressKey: string, accountKey: string): Promise<void> {
    const code = err instanceof DomainError ? err.code : null;
    // A wrong password stays counted; `forbidden` follows a right one; anything else (auth down, a
    // timeout) says nothing about the password and must not lock anybody out.
    if (code === 'unauthorized') return;
    if (code === 'forbidden')
      await Promise.all([this.accounts.reset(accountKey), this.addresses.forgive(addressKey)]);
    else await Promise.all([this.accounts.forgive(accountKey), this.addresses.forgive(addressKey)]);
  }
}

/**
 * Token guessing on the operator API: only failures are counted (operator requests are frequent and
 * may run in parallel), per client address and for the one operator account, each with a bounded
 * exponential backoff.
 */
export class OperatorThrottle {
  private static readonly ACCOUNT_KEY = 'operator:account';

  constructor(
    private readonly addresses: FailureBackoff,
    private readonly accounts: FailureBackoff,
  ) {}

  async check(address: string, response: Response): Promise<void> {
    const waits = await Promise.all([
      this.addresses.waitFor(`operator:address:${address}`),
      this.accounts.waitFor(OperatorThrottle.ACCOUNT_KEY),
    ]);
    const wait = Math.max(...waits);
    if (wait > 0) throw tooManyRequests(response, wait);
  }

  async failed(address: string): Promise<void> {
    await Promise.all([
      this.addresses.fail(`operator:address:${address}`),
      this.accounts.fail(OperatorThrottle.ACCOUNT_KEY),
    ]);
  }
}
