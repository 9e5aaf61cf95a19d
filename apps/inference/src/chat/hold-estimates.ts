/**
 * Tokens per message that providers count beyond its text (role markers, separators; Mock Alpha
 * counts 4, OpenAI about 3 and 3 more for the reply): a hold counts them, and the prompt ratio is
 * learned on the texts alone, so that it holds for a conversation of any number of messages.
 * Charged estimates never count them (24).
 */
export const HELD_TOKENS_PER_MESSAGE = 4;

/** Weight of the newest observation in a running average. */
const NEWEST_WEIGHT = 0.2;
/** How many mean deviations above the average a first hold covers of the answer's length. */
const DEVIATIONS_HELD = 2;

/**
 * A running average of recent observations (the newest weighing NEWEST_WEIGHT) and of how far
 * they stray from it, as TCP keeps round-trip times: `upper` covers most observations, and comes
 * down to the average itself while they repeat.
 */
class RunningValue {
  private deviation = 0;

  constructor(private average: number) {}

  get mean(): number {
    return this.average;
  }

  get upper(): number {
    return this.average + DEVIATIONS_HELD * this.deviation;
  }

  add(observed: number): void {
    this.deviation += NEWEST_WEIGHT * (Math.abs(observed - this.average) - this.deviation);
    this.average += NEWEST_WEIGHT * (observed - this.average);
  }
}

/** What a finished answer taught: the gateway's counts beside the provider's. */
export interface AnsweredCounts {
  /** The prompt's realistic estimate (estimatedTokens of its texts, without the per-message tokens). */
  promptEstimate: number;
  messages: number;
  /** The answer as the gateway counted it while it streamed (TokenTally). */
  answerTally: number;
  /** The provider's usage, when it reported one. */
  provider: { promptTokens: number; completionTokens: number } | null;
}

/**
 * How one model's provider counts chats of one kind of text, learned from its answers: the ratio
 * of its prompt count to the gateway's estimate, the ratio of its completion count to the
 * gateway's count of the answer, and how long the answers have been. Until an answer teaches
 * otherwise, the gateway's own counts and the configured guess of the answer's length stand.
 */
export class LearnedCounts {
  private promptRatio: RunningValue | null = null;
  private completionRatio: RunningValue | null = null;
  private answerLength: RunningValue | null = null;

  constructor(
    private readonly firstGuess: number,
    private readonly minCompletionTokens: number,
  ) {}

  /**
   * The prompt as the provider is expected to count it: the estimate scaled by what it counted of
   * earlier prompts, and HELD_TOKENS_PER_MESSAGE per message (the role markers and separators).
   */
  promptTokens(promptEstimate: number, messages: number): number {
    return Math.round(promptEstimate * (this.promptRatio?.mean ?? 1)) + HELD_TOKENS_PER_MESSAGE * messages;
  }

  /**
   * The answer so far as the provider is expected to count it, from the gateway's count of it:
   * what its hold must pay for. Like the prompt's, the count is the nearest to what was learned: a
   * ratio converges on the provider's and never quite reaches it, and rounding up would make every
   * answer a token longer than it is. An answer the provider counts longer settles on its own
   * count (holdCovers), and is charged no more than its hold.
   */
  completionTokens(answerTally: number): number {
    return Math.round(answerTally * (this.completionRatio?.mean ?? 1));
  }

  /**
   * The answer a first hold covers: as long as this model's answers have been, and twice their
   * spread more. Once answers change length, their spread shrinks more slowly than the average's
   * distance to the new length, so from the second such answer on, the nearest count covers them.
   */
  expectedCompletionTokens(): number {
    return Math.round(this.answerLength?.upper ?? this.firstGuess);
  }

  /**
   * The least answer a first hold must cover, else 402: the configured minimum, or a typical
   * answer (rounded down) where answers have been shorter, so that a balance which pays for one
   * is not refused.
   */
  leastCompletionTokens(): number {
    return Math.max(
      1,
      Math.min(this.minCompletionTokens, Math.floor(this.answerLength?.mean ?? this.firstGuess)),
    );
  }

  record(counts: AnsweredCounts): void {
    const { provider } = counts;
    if (provider !== null && counts.promptEstimate > 0) {
      const promptText = Math.max(0, provider.promptTokens - HELD_TOKENS_PER_MESSAGE * counts.messages);
      this.promptRatio = observe(this.promptRatio, promptText / counts.promptEstimate);
    }
    if (provider !== null && counts.answerTally > 0) {
      this.completionRatio = observe(this.completionRatio, provider.completionTokens / counts.answerTally);
    }
    // What a hold must pay for of an answer like this one: the provider's count at its end, or the
    // gateway's count while it streams, as now scaled, if that is more.
    const paidFor = Math.max(
      provider?.completionTokens ?? counts.answerTally,
      this.completionTokens(counts.answerTally),
    );
    this.answerLength = observe(this.answerLength, paidFor);
  }
}

/** The first observation replaces a guess, as any observation beats one. */
function observe(value: RunningValue | null, observed: number): RunningValue {
  if (value === null) return new RunningValue(observed);
  value.add(observed);
  return value;
}

/**
 * The LearnedCounts of each model, provider and kind of text in this process. Text is told apart
 * by its UTF-8 bytes per character (textWidth): the gateway's estimate counts bytes, and
 * tokenizers spend a different number of bytes per token on Latin, Cyrillic and CJK scripts.
 */
export class HoldEstimates {
  private readonly counts = new Map<string, LearnedCounts>();

  constructor(
    private readonly firstGuess: number,
    private readonly minCompletionTokens: number,
  ) {}

  of(model: string, provider: string, textWidth: number): LearnedCounts {
    const key = `${model}\u0000${provider}\u0000${textWidth}`;
    let counts = this.counts.get(key);
    if (!counts) {
      counts = new LearnedCounts(this.firstGuess, this.minCompletionTokens);
      this.counts.set(key, counts);
    }
    return counts;
  }
}
