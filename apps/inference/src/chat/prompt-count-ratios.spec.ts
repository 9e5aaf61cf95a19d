import { PromptCountRatios } from './prompt-count-ratios';

describe('PromptCountRatios', () => {
  it('holds the estimate for a model not seen, and the provider count once seen', () => {
    const ratios = new PromptCountRatios();
    expect(ratios.scaled('m', 5)).toBe(5);
    ratios.record('m', 5, 19);
    expect(ratios.scaled('m', 5)).toBe(19);
    expect(ratios.scaled('m', 10)).toBe(38);
    expect(ratios.scaled('other', 5)).toBe(5);
  });

  it('never scales an estimate down, and follows the recent answers', () => {
    const ratios = new PromptCountRatios();
    ratios.record('m', 100, 50);
    expect(ratios.scaled('m', 100)).toBe(100);
    ratios.record('m', 100, 300);
    // 0.5 + 0.2 × (3 − 0.5) = 1.0
    expect(ratios.scaled('m', 100)).toBe(100);
    for (let i = 0; i < 30; i++) ratios.record('m', 100, 200);
    expect(ratios.scaled('m', 100)).toBeGreaterThan(195);
  });
});
