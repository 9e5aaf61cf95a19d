import { expectEventually } from '@gw/testing';
import { PeriodicTask } from './periodic-task';

describe('PeriodicTask', () => {
  it('runs at once when asked, then every interval, never two runs at a time', async () => {
    const runs: boolean[] = [];
    let concurrent = 0;
    let maxConcurrent = 0;
    const task = new PeriodicTask('test task', 10, async ({ first }) => {
      runs.push(first);
      concurrent++;
      maxConcurrent = Math.max(maxConcurrent, concurrent);
      await new Promise((resolve) => setTimeout(resolve, 35));
      concurrent--;
    });
    task.start({ runNow: true });
    await expectEventually(() => expect(runs.length).toBeGreaterThanOrEqual(3), { timeoutMs: 2_000 });
    await task.stop();
    expect(runs[0]).toBe(true);
    expect(runs.slice(1).every((first) => !first)).toBe(true);
    expect(maxConcurrent).toBe(1);
  });

  it('keeps running after a run fails', async () => {
    let calls = 0;
    const task = new PeriodicTask('failing task', 5, async () => {
      calls++;
      throw new Error('broken');
    });
    task.start();
    await expectEventually(() => expect(calls).toBeGreaterThanOrEqual(2), { timeoutMs: 2_000 });
    await task.stop();
  });

  it('waits for the run in progress when stopped, and runs no more', async () => {
    let finished = 0;
    let calls = 0;
    const task = new PeriodicTask('slow task', 5, async () => {
      calls++;
      await new Promise((resolve) => setTimeout(resolve, 30));
      finished++;
    });
    task.start({ runNow: true });
    expect(task.active).toBe(true);
    await task.stop();
    expect(task.active).toBe(false);
    expect(finished).toBe(calls);
    const after = calls;
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(calls).toBe(after);
  });
});
