import type { ProviderRoute } from '@gw/catalogue';
import { HOLD_STEP_TOKENS, holdNeeds, initialHold } from './hold-sizing';

/** Mock Alpha's prices (150 and 600 RUB per million) and completion limit. */
const alpha = {
  name: 'Mock Alpha',
  maxCompletionTokens: 4096,
  pricing: { currency: 'RUB', prompt_per_million: '150.00', completion_per_million: '600.00' },
} as ProviderRoute;
const rub = (promptTokens: number, completionTokens: number) =>
  ((promptTokens * 150 + completionTokens * 600) / 1_000_000).toFixed(8);

describe('initialHold', () => {
  it('covers the prompt estimate and the expected completion, down to the minimum completion', () => {
    const hold = initialHold(alpha, 10, 40, null, 16);
    expect(hold.maxAmount.toFixed(8)).toBe(rub(10, 40));
    expect(hold.minAmount.toFixed(8)).toBe(rub(10, 16));
  });

  it("never covers more completion than the client's max_tokens or the provider allow", () => {
    expect(initialHold(alpha, 10, 40, 5, 16).maxAmount.toFixed(8)).toBe(rub(10, 5));
    expect(initialHold(alpha, 10, 40, 5, 16).minAmount.toFixed(8)).toBe(rub(10, 5));
    expect(initialHold(alpha, 10, 10_000, null, 16).maxAmount.toFixed(8)).toBe(rub(10, 4096));
  });

  it('covers at least the minimum completion when answers have been shorter', () => {
    expect(initialHold(alpha, 10, 2, null, 16).maxAmount.toFixed(8)).toBe(rub(10, 16));
  });
});

describe('holdNeeds', () => {
  it('asks for room to double a long answer, and at least a step more for a short one', () => {
    const long = holdNeeds(alpha, 10, 300, 4096);
    expect([long.needed.toFixed(8), long.target.toFixed(8)]).toEqual([rub(10, 300), rub(10, 600)]);
    const short = holdNeeds(alpha, 10, 5, 4096);
    expect([short.needed.toFixed(8), short.target.toFixed(8)]).toEqual([
      rub(10, 5),
      rub(10, 5 + HOLD_STEP_TOKENS),
    ]);
  });

  it('never asks past what the completion ceiling costs', () => {
    expect(holdNeeds(alpha, 10, 3000, 4096).target.toFixed(8)).toBe(rub(10, 4096));
    expect(holdNeeds(alpha, 10, 100, 120).target.toFixed(8)).toBe(rub(10, 120));
  });

  it('keeps doubling once an answer is past the ceiling, instead of asking a token at a time', () => {
    expect(holdNeeds(alpha, 10, 130, 120).target.toFixed(8)).toBe(rub(10, 260));
    expect(holdNeeds(alpha, 10, 120, 120).target.toFixed(8)).toBe(rub(10, 240));
  });
});
