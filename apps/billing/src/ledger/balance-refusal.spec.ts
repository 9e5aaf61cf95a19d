import { Decimal } from 'decimal.js';
import { insufficientBalanceMessage } from './balance-refusal';

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
