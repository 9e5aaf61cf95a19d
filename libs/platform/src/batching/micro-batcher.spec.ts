import { type BatchOutcome, groupCommit, MicroBatcher } from './micro-batcher';

/** A run that records each batch it gets and can be held open until the test releases it. */
function recordingRun(
  answer: (item: number) => BatchOutcome<string> = (item) => ({ ok: true, value: `r${item}` }),
) {
  const batches: number[][] = [];
  const gates: (() => void)[] = [];
  let holding = false;
  const run = async (items: readonly number[]) => {
    batches.push([...items]);
    if (holding) await new Promise<void>((release) => gates.push(release));
    return items.map(answer);
  };
  return {
    batches,
    run,
    hold: () => (holding = true),
    releaseAll: () => {
      holding = false;
      gates.splice(0).forEach((release) => release());
    },
  };
}

describe('MicroBatcher', () => {
  it('starts a batch as soon as maxItems wait, without waiting for the timer', async () => {
    const recorder = recordingRun();
    const batcher = new MicroBatcher({ maxItems: 3, maxWaitMs: 60_000, maxInFlight: 1, run: recorder.run });
    const results = await Promise.all([1, 2, 3].map((item) => batcher.submit(item)));
    expect(results).toEqual(['r1', 'r2', 'r3']);
    expect(recorder.batches).toEqual([[1, 2, 3]]);
  });

  it('starts a smaller batch once maxWaitMs passed since its first item', async () => {
    const recorder = recordingRun();
    const batcher = new MicroBatcher({ maxItems: 100, maxWaitMs: 5, maxInFlight: 1, run: recorder.run });
    await expect(Promise.all([batcher.submit(1), batcher.submit(2)])).resolves.toEqual(['r1', 'r2']);
    await expect(batcher.submit(3)).resolves.toBe('r3');
    expect(recorder.batches).toEqual([[1, 2], [3]]);
  });

  it('with startWhenIdle, an idle batcher starts at the end of the turn: no timer wait, same-turn items together', async () => {
    const recorder = recordingRun();
    const batcher = new MicroBatcher({
      maxItems: 100,
      maxWaitMs: 60_000,
      startWhenIdle: true,
      maxInFlight: 1,
      run: recorder.run,
    });
    await expect(Promise.all([batcher.submit(1), batcher.submit(2)])).resolves.toEqual(['r1', 'r2']);
    await expect(batcher.submit(3)).resolves.toBe('r3');
    expect(recorder.batches).toEqual([[1, 2], [3]]);
  });

  it('with startWhenIdle, an item that arrives while a batch runs still waits maxWaitMs for company', async () => {
    const recorder = recordingRun();
    const batcher = new MicroBatcher({
      maxItems: 100,
      maxWaitMs: 30,
      startWhenIdle: true,
      maxInFlight: 2,
      run: recorder.run,
    });
    recorder.hold();
    const first = batcher.submit(1);
    await new Promise((resolve) => setImmediate(resolve));
    const second = batcher.submit(2);
    await new Promise((resolve) => setTimeout(resolve, 10));
    const third = batcher.submit(3);
    // A slot is free, but the first batch is in flight: the second item waits for company.
    expect(recorder.batches).toEqual([[1]]);
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(recorder.batches).toEqual([[1], [2, 3]]);
    recorder.releaseAll();
    await expect(Promise.all([first, second, third])).resolves.toEqual(['r1', 'r2', 'r3']);
  });

  it('an item that arrives while the only slot is busy waits maxWaitMs after its arrival, however soon the slot frees', async () => {
    const recorder = recordingRun();
    const batcher = new MicroBatcher({ maxItems: 100, maxWaitMs: 30, maxInFlight: 1, run: recorder.run });
    recorder.hold();
    const first = batcher.submit(1);
    await new Promise((resolve) => setTimeout(resolve, 40));
    const second = batcher.submit(2);
    recorder.releaseAll();
    await first;
    await new Promise((resolve) => setTimeout(resolve, 5));
    const third = batcher.submit(3);
    // The slot is free, but the second item's wait is not over: the third joins it.
    expect(recorder.batches).toEqual([[1]]);
    await expect(Promise.all([second, third])).resolves.toEqual(['r2', 'r3']);
    expect(recorder.batches).toEqual([[1], [2, 3]]);
  });

  it('queues what arrives while every slot is busy and runs it next, in arrival order', async () => {
    const recorder = recordingRun();
    const batcher = new MicroBatcher({ maxItems: 2, maxWaitMs: 0, maxInFlight: 1, run: recorder.run });
    recorder.hold();
    const first = batcher.submit(1);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const rest = [2, 3, 4, 5, 6].map((item) => batcher.submit(item));
    expect(recorder.batches).toEqual([[1]]);
    recorder.releaseAll();
    await expect(Promise.all([first, ...rest])).resolves.toEqual(['r1', 'r2', 'r3', 'r4', 'r5', 'r6']);
    expect(recorder.batches).toEqual([[1], [2, 3], [4, 5], [6]]);
  });

  it('runs up to maxInFlight batches at the same time', async () => {
    const recorder = recordingRun();
    const batcher = new MicroBatcher({ maxItems: 1, maxWaitMs: 0, maxInFlight: 2, run: recorder.run });
    recorder.hold();
    const answers = [1, 2, 3].map((item) => batcher.submit(item));
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(recorder.batches).toEqual([[1], [2]]);
    recorder.releaseAll();
    await new Promise((resolve) => setTimeout(resolve, 5));
    recorder.releaseAll();
    await expect(Promise.all(answers)).resolves.toEqual(['r1', 'r2', 'r3']);
  });

  it('fails only the caller whose outcome is an error', async () => {
    const recorder = recordingRun((item) =>
      item === 2 ? { ok: false, error: new Error('refused') } : { ok: true, value: `r${item}` },
    );
    const batcher = new MicroBatcher({ maxItems: 3, maxWaitMs: 1, maxInFlight: 1, run: recorder.run });
    const answers = await Promise.allSettled([1, 2, 3].map((item) => batcher.submit(item)));
    expect(answers).toEqual([
      { status: 'fulfilled', value: 'r1' },
      { status: 'rejected', reason: new Error('refused') },
      { status: 'fulfilled', value: 'r3' },
    ]);
    expect(recorder.batches).toEqual([[1, 2, 3]]);
  });

  it('runs each item of a batch that throws again alone, so only the item that breaks it fails', async () => {
    const batches: number[][] = [];
    const batcher = new MicroBatcher<number, string>({
      maxItems: 3,
      maxWaitMs: 1,
      maxInFlight: 1,
      run: async (items) => {
        batches.push([...items]);
        if (items.includes(2)) throw new Error('poison 2');
        return items.map((item) => ({ ok: true, value: `r${item}` }));
      },
    });
    const answers = await Promise.allSettled([1, 2, 3].map((item) => batcher.submit(item)));
    expect(answers).toEqual([
      { status: 'fulfilled', value: 'r1' },
      { status: 'rejected', reason: new Error('poison 2') },
      { status: 'fulfilled', value: 'r3' },
    ]);
    expect(batches).toEqual([[1, 2, 3], [1], [2], [3]]);
  });

  it('fails the callers of a run that answers the wrong number of outcomes', async () => {
    const batcher = new MicroBatcher<number, string>({
      maxItems: 1,
      maxWaitMs: 0,
      maxInFlight: 1,
      run: async () => [],
    });
    await expect(batcher.submit(1)).rejects.toThrow('A batch of 1 item(s) answered 0 outcome(s)');
  });

  it('drains: resolves once everything submitted has been answered', async () => {
    const recorder = recordingRun();
    const batcher = new MicroBatcher({ maxItems: 100, maxWaitMs: 60_000, maxInFlight: 1, run: recorder.run });
    const answers = [1, 2].map((item) => batcher.submit(item));
    await batcher.drain();
    expect(recorder.batches).toEqual([[1, 2]]);
    await expect(Promise.all(answers)).resolves.toEqual(['r1', 'r2']);
  });
});

describe('groupCommit', () => {
  it('writes the first item at once and the items that arrive meanwhile as one batch', async () => {
    const batches: number[][] = [];
    const gates: (() => void)[] = [];
    const group = groupCommit(async (items: readonly number[]) => {
      batches.push([...items]);
      await new Promise<void>((release) => gates.push(release));
    });
    const first = group.submit(1);
    const later = [group.submit(2), group.submit(3), group.submit(4)];
    expect(batches).toEqual([[1]]);
    gates.shift()?.();
    await first;
    while (gates.length === 0) await new Promise((resolve) => setImmediate(resolve));
    gates.shift()?.();
    await Promise.all(later);
    expect(batches).toEqual([[1], [2, 3, 4]]);
  });
});
