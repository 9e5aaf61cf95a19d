import Decimal from 'decimal.js';
import { maxChatCost, roundCost } from '@gw/pricing';
import type { ProviderRoute } from '@gw/catalogue';
import type { HoldAmounts } from '@gw/paid-generation';
import { completionCeiling } from './chat-plan';

/** A hold grows by at least this many completion tokens, so that a long answer asks billing only a few times. */
export const HOLD_STEP_TOKENS = 64;

/**
 * The first hold of a chat: the prompt and the answer as long as this model's answers have been,
 * both in the provider's tokens as learned from its answers (see LearnedCounts), at the prices of
 * the provider tried first, within the completion ceiling. A balance that cannot cover it may hold
 * less, down to the prompt and `minCompletionTokens` (never more than a typical answer); either
 * way the hold grows as the answer does (see holdNeeds), so it never has to cover the longest
 * possible answer up front.
 */
export function initialHold(
  route: ProviderRoute,
  promptTokens: number,
  expectedCompletionTokens: number,
  clientMax: number | null,
  minCompletionTokens: number,
): HoldAmounts {
  const ceiling = completionCeiling(route, clientMax);
  const least = Math.min(minCompletionTokens, ceiling);
  return {
    maxAmount: maxChatCost(
      route.pricing,
      promptTokens,
      Math.max(least, Math.min(expectedCompletionTokens, ceiling)),
    ),
    minAmount: maxChatCost(route.pricing, promptTokens, least),
  };
}

export interface HoldNeeds {
  /** What the answer has cost so far, at the provider's dearest unit prices. */
  needed: Decimal;
  /**
   * Where to grow the hold when it does not cover `needed`: room for the answer to double (at
   * least HOLD_STEP_TOKENS more), never past what the completion ceiling can cost while the answer
   * is within it.
   */
  target: Decimal;
}

export function holdNeeds(
  route: ProviderRoute,
  promptTokens: number,
  producedTokens: number,
  ceilingTokens: number,
): HoldNeeds {
  const needed = roundCost(maxChatCost(route.pricing, promptTokens, producedTokens));
  const doubled = producedTokens + Math.max(HOLD_STEP_TOKENS, producedTokens);
  // Past the ceiling it bounds nothing (an estimate that overshot, a provider past max_tokens): capped
  // there, every further token asked billing for one more.
  const room = producedTokens < ceilingTokens ? Math.min(ceilingTokens, doubled) : doubled;
  const target = roundCost(maxChatCost(route.pricing, promptTokens, room));
  return { needed, target: Decimal.max(needed, target) };
}
