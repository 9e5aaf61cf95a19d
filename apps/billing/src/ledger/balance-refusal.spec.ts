import { Decimal } from 'decimal.js';
import { insufficientBalanceMessage, noBalanceAvailableMessage } from './balance-refusal';

describe('insufficientBalanceMessage', () => {
  it.each<[string | undefined, string]>([
    ['chat_completions', 'Top up the balance or lower max_tokens.'],
    ['messages', 'Top up the balance or lower max_tokens.'],
    ['responses', 'Top up the balance or lower max_output_tokens.'],
    ['embeddings', 'Top up the balance to continue.'],
    ['transcriptions', 'Top up the balance to continue.'],
    ['media', 'Top up the balance to continue.'],
    // A reserve request without (well-formed) context.
    [undefined, 'Top up the balance to continue.'],
    ['toString', 'Top up the balance to continue.'],
  ])('offers a request of apiType %s: %s', (apiType, remedy) => {
    expect(insufficientBalanceMessage(new Decimal('2'), new Decimal('3'), apiType)).toBe(
      `Insufficient balance: 2.00000000 RUB available, but this request needs at least 3.00000000 RUB. ${remedy}`,
    );
  });
});

describe('noBalanceAvailableMessage', () => {
  it('says how much running requests hold', () => {
    expect(noBalanceAvailableMessage(new Decimal('2'), new Decimal('2'))).toBe(
      'Insufficient balance: the balance is 2.00000000 RUB and 2.00000000 RUB of it is held by requests in progress. Top up the balance to continue.',
    );
  });

  it('blames no request in progress for a balance spent', () => {
    expect(noBalanceAvailableMessage(new Decimal('0'), new Decimal('0'))).toBe(
      'Insufficient balance: the balance is 0.00000000 RUB. Top up the balance to continue.',
    );
  });
});
