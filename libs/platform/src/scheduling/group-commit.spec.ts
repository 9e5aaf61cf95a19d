import { GroupCommit } from './group-commit';

/** A write that stays open until the test lets it finish, recording what each call wrote. */
function gatedWriter() {
  const batches: number[][] = [];
  const gates: Array<() => void> = [];
  const write = (items: number[]) =>
    new Promise<void>((resolve) => {
      batches.push(items);
      gates.push(resolve);
    });
  const openNext = async () => {
    while (gates.length === 0) await new Promise((resolve) => setImmediate(resolve));
    gates.shift()?.();
  };
  return { write, batches, openNext };
}

describe('GroupCommit', () => {
  it('writes the first item at once and the items that arrive meanwhile as one batch', async () => {
    const writer = gatedWriter();
    const group = new GroupCommit(writer.write);
    const first = group.add(1);
    const later = [group.add(2), group.add(3), group.add(4)];
    expect(writer.batches).toEqual([[1]]);
    await writer.openNext();
    await first;
    await writer.openNext();
    await Promise.all(later);
    expect(writer.batches).toEqual([[1], [2, 3, 4]]);
    await group.idle();
  });

  it('caps a batch and writes the rest in the next one', async () => {
    const writer = gatedWriter();
    const group = new GroupCommit(writer.write, 2);
    const all = [1, 2, 3, 4, 5].map((n) => group.add(n));
    for (let i = 0; i < 3; i++) await writer.openNext();
    await Promise.all(all);
    expect(writer.batches).toEqual([[1], [2, 3], [4, 5]]);
  });

  it('fails only the caller of a failing item: a failed batch is written again item by item', async () => {
    const batches: number[][] = [];
    // Item 3 is the bad row (a duplicate key, say): any write that holds it fails.
    const group = new GroupCommit(async (items: number[]) => {
      batches.push(items);
      await new Promise((resolve) => setImmediate(resolve));
      if (items.includes(3)) throw new Error('duplicate key');
    });
    const [first, second, third] = [group.add(1), group.add(2), group.add(3)];
    await expect(first).resolves.toBeUndefined();
    await expect(second).resolves.toBeUndefined();
    await expect(third).rejects.toThrow('duplicate key');
    expect(batches).toEqual([[1], [2, 3], [2], [3]]);
  });
});
