import { CompletionEstimates } from './completion-estimates';

describe('CompletionEstimates', () => {
  it('answers the first guess for a model not seen, and its first answer once seen', () => {
    const estimates = new CompletionEstimates(256);
    expect(estimates.expected('demo/chat')).toBe(256);
    estimates.record('demo/chat', 20);
    expect(estimates.expected('demo/chat')).toBe(20);
    expect(estimates.expected('demo/other')).toBe(256);
  });

  it('follows the recent answers of a model, the newest weighing most', () => {
    const estimates = new CompletionEstimates(256);
    estimates.record('m', 20);
    estimates.record('m', 120);
    // 20 + 0.2 × (120 − 20) = 40
    expect(estimates.expected('m')).toBe(40);
    for (let i = 0; i < 30; i++) estimates.record('m', 500);
    expect(estimates.expected('m')).toBeGreaterThan(495);
  });
});
