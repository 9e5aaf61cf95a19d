import { HEAP_GROWING_PERCENT, limitHeapGrowth } from './heap-growth';

describe('the heap growth policy', () => {
  it('bounds the growth when the operator said nothing', () => {
    expect(limitHeapGrowth([], undefined)).toBe(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
    expect(limitHeapGrowth(['--enable-source-maps'], '--max-old-space-size=512')).toBe(
      '--heap-growing-percent=50',
    );
  });

  it("keeps the operator's own setting, from the command line or NODE_OPTIONS, in either spelling", () => {
    expect(limitHeapGrowth(['--heap-growing-percent=80'], undefined)).toBeNull();
    expect(limitHeapGrowth([], '--max-old-space-size=512 --heap_growing_percent=20')).toBeNull();
  });
});
