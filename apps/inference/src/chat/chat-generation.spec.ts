import Decimal from 'decimal.js';
import type { ProviderRoute } from '@gw/catalogue';
import { GenerationHold } from '@gw/paid-generation';
import { completionCost, producedUsageAndCost, usageOrEstimate } from './chat-generation';

const alpha = {
  name: 'Mock Alpha',
  pricing: { currency: 'RUB', prompt_per_million: '150.00', completion_per_million: '600.00' },
} as ProviderRoute;
/** A hold of 1 that is never grown nor reported here: only its cap is used. */
const HELD = new GenerationHold(
  {
    generationId: 'gen-held',
    principal: { kind: 'user', organizationId: 'org', userId: 'user', role: 'member' },
    model: 'demo/chat',
    modelDisplayName: 'Demo Chat',
    requestType: 'chat',
    apiType: 'chat_completions',
    responseMode: 'sync',
    startedAt: new Date(),
  },
  new Decimal('1'),
  { extend: async (_context, held) => held, record: async () => undefined },
);

describe('usageOrEstimate', () => {
  it.each<[string, Parameters<typeof usageOrEstimate>, ReturnType<typeof usageOrEstimate>]>([
    [
      'the reported usage as it is',
      [{ prompt_tokens: 11, completion_tokens: 6 }, 8, 'ignored'],
      { prompt_tokens: 11, completion_tokens: 6 },
    ],
    [
      'without one, the prompt tokens given and the estimate of the text',
      [null, 8, 'Count'],
      { prompt_tokens: 8, completion_tokens: 2 },
    ],
    ['nothing produced as zero completion tokens', [null, 8, ''], { prompt_tokens: 8, completion_tokens: 0 }],
  ])('takes %s', (_label, args, expected) => {
    expect(usageOrEstimate(...args)).toEqual(expected);
  });
});

describe('producedUsageAndCost', () => {
  it('charges nothing when nothing was produced and nothing reported', () => {
    expect(producedUsageAndCost(alpha, null, 8, '', HELD).cost.toString()).toBe('0');
  });

  it('charges the estimate of a stream cut without usage, below what the whole answer costs', () => {
    // 'Count slowly to five please [[drop]]': Mock Alpha would report 6 + 4 = 10 prompt and 5 completion tokens for the
    // whole answer; cut after 'Count', the prompt is estimated (36 bytes → 9) and the completion too ('Count' → 2).
    const whole = completionCost(alpha, { prompt_tokens: 10, completion_tokens: 5 }, HELD);
    const cut = producedUsageAndCost(alpha, null, 9, 'Count', HELD);
    expect(cut.usage).toEqual({ prompt_tokens: 9, completion_tokens: 2 });
    expect(cut.cost.toString()).toBe('0.00255');
    expect(cut.cost.lessThan(whole)).toBe(true);
  });

  it('never charges more than was held', () => {
    expect(
      producedUsageAndCost(
        alpha,
        { prompt_tokens: 1_000_000, completion_tokens: 0 },
        8,
        'x',
        HELD,
      ).cost.toString(),
    ).toBe('1');
  });
});
