/** Weight of the newest answer in a model's running ratio. */
const NEWEST_WEIGHT = 0.2;

/**
 * How a model's provider counts prompts against the gateway's estimate, per model: a running
 * average of (provider's prompt tokens ÷ the held estimate) over this process's answers. A first
 * hold scaled by it covers what the provider will charge for the prompt, so an answer of the usual
 * length settles within its hold instead of asking billing to grow it at the end. An estimate is
 * never scaled down: counting too many only holds a little more until the answer settles.
 */
export class PromptCountRatios {
  private readonly ratios = new Map<string, number>();

  scaled(model: string, heldPromptTokens: number): number {
    return Math.ceil(heldPromptTokens * Math.max(1, this.ratios.get(model) ?? 1));
  }

  record(model: string, heldPromptTokens: number, providerPromptTokens: number): void {
    if (heldPromptTokens <= 0) return;
    const observed = providerPromptTokens / heldPromptTokens;
    const ratio = this.ratios.get(model);
    this.ratios.set(model, ratio === undefined ? observed : ratio + NEWEST_WEIGHT * (observed - ratio));
  }
}
