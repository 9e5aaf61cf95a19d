import { EARLY_CANCELLATION_TTL_MS, GenerationCancellations } from './generation-cancellations';

describe('GenerationCancellations', () => {
  let now = 0;
  const registry = () => new GenerationCancellations(() => now);

  beforeEach(() => {
    now = 1_000_000;
  });

  it('aborts a running generation once and forgets it when closed', () => {
    const cancellations = registry();
    const signal = cancellations.open('gen-a');
    expect(cancellations.cancel('gen-a')).toBe(true);
    expect(signal.aborted).toBe(true);
    const other = cancellations.open('gen-b');
    cancellations.close('gen-b');
    expect(cancellations.cancel('gen-b')).toBe(false);
    expect(other.aborted).toBe(false);
  });

  it('aborts at once a generation whose cancellation arrived before it started', () => {
    const cancellations = registry();
    expect(cancellations.cancel('gen-early')).toBe(false);
    expect(cancellations.open('gen-early').aborted).toBe(true);
    expect(cancellations.open('gen-early').aborted).toBe(false);
  });

  it('forgets an early cancellation after its time to live', () => {
    const cancellations = registry();
    cancellations.cancel('gen-late');
    now += EARLY_CANCELLATION_TTL_MS + 1;
    expect(cancellations.open('gen-late').aborted).toBe(false);
  });
});
