import { HoldEstimates, LearnedCounts } from './hold-estimates';

/**
 * Mock Alpha's counts of an English sentence of 15 words and 81 bytes: the gateway estimates its
 * text at 21 tokens and the echoed answer at 21; Mock Alpha counts 15 + 4 for its one message and
 * 15 for the answer.
 */
const englishChat = {
  promptEstimate: 21,
  messages: 1,
  answerTally: 21,
  provider: { promptTokens: 19, completionTokens: 15 },
};

describe('LearnedCounts', () => {
  it('holds the gateway’s own counts and the configured guess before any answer', () => {
    const counts = new LearnedCounts(256, 16);
    expect(counts.promptTokens(21, 1)).toBe(25);
    expect(counts.completionTokens(21)).toBe(21);
    expect(counts.expectedCompletionTokens()).toBe(256);
    expect(counts.leastCompletionTokens()).toBe(16);
  });

  it('holds what the provider counted once it answered, below the gateway’s estimate too', () => {
    const counts = new LearnedCounts(256, 16);
    counts.record(englishChat);
    expect(counts.promptTokens(21, 1)).toBe(19);
    // A conversation of three messages: the ratio is of the texts, the per-message tokens stay 4 each.
    expect(counts.promptTokens(42, 3)).toBe(30 + 12);
    expect(counts.completionTokens(21)).toBe(15);
    expect(counts.expectedCompletionTokens()).toBe(15);
    for (let i = 0; i < 30; i++) counts.record(englishChat);
    expect(counts.expectedCompletionTokens()).toBe(15);
  });

  it('never asks a first hold for more than a typical answer as the least it must cover', () => {
    const counts = new LearnedCounts(256, 16);
    for (let i = 0; i < 30; i++) counts.record(englishChat);
    expect(counts.leastCompletionTokens()).toBe(15);
    const long = new LearnedCounts(256, 16);
    for (let i = 0; i < 5; i++) long.record({ ...englishChat, answerTally: 300, provider: null });
    expect(long.leastCompletionTokens()).toBe(16);
  });

  it('covers the spread of answers, and their new length soon after they change', () => {
    const counts = new LearnedCounts(256, 16);
    const answer = (completionTokens: number) =>
      counts.record({ ...englishChat, answerTally: completionTokens, provider: null });
    for (let i = 0; i < 30; i++) answer(i % 2 === 0 ? 10 : 30);
    // Their average is 20; the hold covers most of them.
    expect(counts.expectedCompletionTokens()).toBeGreaterThanOrEqual(30);
    expect(counts.expectedCompletionTokens()).toBeLessThan(60);
    answer(100);
    for (let i = 0; i < 60; i++) {
      answer(100);
      expect(counts.expectedCompletionTokens()).toBeGreaterThanOrEqual(100);
    }
    for (let i = 0; i < 60; i++) {
      answer(20);
      expect(counts.expectedCompletionTokens()).toBeGreaterThanOrEqual(20);
    }
    // While they repeat, the hold comes down to their length itself.
    expect(counts.expectedCompletionTokens()).toBe(20);
  });

  it('learns no ratio from an answer without the provider’s usage', () => {
    const counts = new LearnedCounts(256, 16);
    counts.record({ ...englishChat, provider: null });
    expect(counts.promptTokens(21, 1)).toBe(25);
    expect(counts.completionTokens(21)).toBe(21);
    expect(counts.expectedCompletionTokens()).toBe(21);
  });
});

describe('HoldEstimates', () => {
  it('learns each model, provider and kind of text apart', () => {
    const estimates = new HoldEstimates(256, 16);
    estimates.of('demo/chat', 'Mock Alpha', 1).record(englishChat);
    expect(estimates.of('demo/chat', 'Mock Alpha', 1).completionTokens(21)).toBe(15);
    expect(estimates.of('demo/chat', 'Mock Alpha', 2).completionTokens(21)).toBe(21);
    expect(estimates.of('demo/chat', 'Mock Beta', 1).completionTokens(21)).toBe(21);
    expect(estimates.of('demo/other', 'Mock Alpha', 1).completionTokens(21)).toBe(21);
  });
});
