import { ScrapeReading } from './scrape-reading';

describe('ScrapeReading', () => {
  it('shares a running read between the scrapes that ask meanwhile', async () => {
    let reads = 0;
    let answer!: (value: number) => void;
    const reading = new ScrapeReading(() => {
      reads += 1;
      return new Promise<number>((resolve) => (answer = resolve));
    });
    const first = reading.take();
    const second = reading.take();
    answer(7);
    expect(await Promise.all([first, second])).toEqual([7, 7]);
    expect(reads).toBe(1);
  });

  it('answers null for a failed read, and reads again at the next scrape', async () => {
    let fail = true;
    const reading = new ScrapeReading(async () => {
      if (fail) throw new Error('database down');
      return 3;
    });
    expect(await reading.take()).toBeNull();
    fail = false;
    expect(await reading.take()).toBe(3);
  });

  it('gives up on a late read without starting another while it still runs', async () => {
    let reads = 0;
    let answer!: (value: number) => void;
    const reading = new ScrapeReading(() => {
      reads += 1;
      return new Promise<number>((resolve) => (answer = resolve));
    }, 20);
    expect(await reading.take()).toBeNull();
    expect(await reading.take()).toBeNull();
    expect(reads).toBe(1);
    answer(5);
    await Promise.resolve();
    expect(await reading.take()).toBeNull();
    expect(reads).toBe(2);
  });
});
