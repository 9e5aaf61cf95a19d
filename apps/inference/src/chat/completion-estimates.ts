/** Weight of the newest answer in a model's running average. */
const NEWEST_WEIGHT = 0.2;

/**
 * How long each model's answers have been lately (completion tokens), for sizing first holds: a
 * running average of this process's completed answers, per model. Before a model's first answer
 * the configured guess stands; the first answer replaces it, as any observation beats a guess.
 */
export class CompletionEstimates {
  private readonly averages = new Map<string, number>();

  constructor(private readonly firstGuess: number) {}

  expected(model: string): number {
    return Math.ceil(this.averages.get(model) ?? this.firstGuess);
  }

  record(model: string, completionTokens: number): void {
    const average = this.averages.get(model);
    this.averages.set(
      model,
      average === undefined ? completionTokens : average + NEWEST_WEIGHT * (completionTokens - average),
    );
  }
}
