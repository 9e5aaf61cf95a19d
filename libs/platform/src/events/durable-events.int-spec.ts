import { durableEvent } from '@gw/contracts';
import { IsInt, IsString } from 'class-validator';
import { expectEventually, startTestNats, type TestNats, uniqueSuffix } from '@gw/testing';
import { InProcessBus } from '../transport/in-process-bus';
import { InProcessDurableEvents, JetStreamDurableEvents } from './durable-events';

const suffix = uniqueSuffix();
class FactEvent {
  @IsString()
  id!: string;

  @IsInt()
  n!: number;
}
const Fact = durableEvent<FactEvent>(`events.test.${suffix}`, FactEvent);
/** Subjects of their own, so that a new durable consumer does not start with the other tests' events. */
const BatchedFact = durableEvent<FactEvent>(`events.test-batches.${suffix}`, FactEvent);
const PoisonFact = durableEvent<FactEvent>(`events.test-poison.${suffix}`, FactEvent);

describe('JetStream durable events', () => {
  const durable = `test-${suffix}`;
  let nats: TestNats;

  beforeAll(async () => {
    nats = await startTestNats();
  });

  afterAll(() => nats.stop());

  it('keeps events published while no consumer runs, redelivers failures and drops duplicate message ids', async () => {
    // Events already on their way to the stopped subscriber come back after the ack wait.
    const ackWaitMs = 2_000;
    const publisher = new JetStreamDurableEvents(nats.url);
    await publisher.publish(Fact, { id: 'a', n: 1 }, `${suffix}-a`);
    await publisher.publish(Fact, { id: 'a', n: 1 }, `${suffix}-a`);
    await publisher.publish(Fact, { id: 'b', n: 2 }, `${suffix}-b`);

    const seen: string[] = [];
    let failuresLeft = 1;
    const consumer = new JetStreamDurableEvents(nats.url, { ackWaitMs });
    const subscription = await consumer.subscribe(Fact, durable, async (event) => {
      if (event.id === 'b' && failuresLeft-- > 0) throw new Error('transient');
      seen.push(event.id);
    });
    await expectEventually(() => expect(seen.sort()).toEqual(['a', 'b']), { timeoutMs: 8_000 });
    await subscription.stop();

    await publisher.publish(Fact, { id: 'c', n: 3 }, `${suffix}-c`);
    const resumed = await consumer.subscribe(Fact, durable, async (event) => {
      seen.push(event.id);
    });
    await expectEventually(() => expect(seen).toContain('c'), { timeoutMs: ackWaitMs + 5_000 });
    expect(seen.filter((id) => id === 'a')).toHaveLength(1);
    await resumed.stop();
    await publisher.onApplicationShutdown();
    await consumer.onApplicationShutdown();
  }, 20_000);

  it('hands events over in batches, in order, acknowledges each after its batch and redelivers only the one that failed', async () => {
    const publisher = new JetStreamDurableEvents(nats.url);
    const ids = Array.from({ length: 30 }, (_, i) => `batch-${i}`);
    for (const id of ids)
      await publisher.publish(BatchedFact, { id, n: id === 'batch-7' ? -1 : 1 }, `${suffix}-${id}`);
    await publisher.publish(
      BatchedFact,
      { id: 'refused', n: 'one' } as unknown as FactEvent,
      `${suffix}-refused`,
    );
    // A publisher's word that it built the event does not cross NATS: the consumer validates it.
    await publisher.publish(
      BatchedFact,
      { id: 'refused-though-built', n: 'one' } as unknown as FactEvent,
      `${suffix}-refused-though-built`,
      { builtByCaller: true },
    );

    const batches: string[][] = [];
    const done: string[] = [];
    let failuresLeft = 1;
    const consumer = new JetStreamDurableEvents(nats.url, { ackWaitMs: 60_000 });
    const subscription = await consumer.subscribeBatches(
      BatchedFact,
      `${durable}-batches`,
      async (events) => {
        batches.push(events.map((e) => e.id));
        return events.map((event) => {
          if (event.n < 0 && failuresLeft-- > 0) return { ok: false, error: new Error('transient') };
          done.push(event.id);
          return { ok: true, value: undefined };
        });
      },
      { maxItems: 8, maxWaitMs: 20 },
    );
    await expectEventually(() => expect(done).toHaveLength(30), { timeoutMs: 8_000 });
    // Batches, in publication order; the failed event came back alone, after a redelivery delay.
    expect(batches.length).toBeLessThan(30);
    expect(batches.every((batch) => batch.length <= 8)).toBe(true);
    expect(done.filter((id) => id !== 'batch-7')).toEqual(ids.filter((id) => id !== 'batch-7'));
    expect(done.at(-1)).toBe('batch-7');
    await subscription.stop();
    await consumer.onApplicationShutdown();

    // Everything was acknowledged: a new subscriber on the same durable consumer gets nothing again.
    const again: string[] = [];
    const resumed = new JetStreamDurableEvents(nats.url);
    const second = await resumed.subscribeBatches(
      BatchedFact,
      `${durable}-batches`,
      async (events) => {
        again.push(...events.map((e) => e.id));
        return events.map(() => ({ ok: true, value: undefined }));
      },
      { maxItems: 8, maxWaitMs: 20 },
    );
    await publisher.publish(BatchedFact, { id: 'after', n: 1 }, `${suffix}-after`);
    await expectEventually(() => expect(again).toEqual(['after']), { timeoutMs: 5_000 });
    await second.stop();
    await resumed.onApplicationShutdown();
    await publisher.onApplicationShutdown();
  }, 30_000);

  it('runs the events of a batch whose handler throws again one at a time', async () => {
    const publisher = new JetStreamDurableEvents(nats.url);
    for (const n of [1, 2, -3, 4])
      await publisher.publish(PoisonFact, { id: `poison-${n}`, n }, `${suffix}-poison-${n}`);
    const sizes: number[] = [];
    const done: number[] = [];
    let poisonSeen = 0;
    const consumer = new JetStreamDurableEvents(nats.url, { ackWaitMs: 60_000 });
    const subscription = await consumer.subscribeBatches(
      PoisonFact,
      `${durable}-poison`,
      async (events) => {
        sizes.push(events.length);
        if (events.some((e) => e.n < 0)) {
          poisonSeen += 1;
          if (poisonSeen > 2) return events.map(() => ({ ok: true, value: undefined }));
          throw new Error('poison');
        }
        done.push(...events.map((e) => e.n));
        return events.map(() => ({ ok: true, value: undefined }));
      },
      { maxItems: 4, maxWaitMs: 50 },
    );
    await expectEventually(() => expect(done).toEqual([1, 2, 4]), { timeoutMs: 8_000 });
    expect(sizes.slice(0, 5)).toEqual([4, 1, 1, 1, 1]);
    await expectEventually(() => expect(poisonSeen).toBe(3), { timeoutMs: 8_000 });
    await subscription.stop();
    await consumer.onApplicationShutdown();
    await publisher.onApplicationShutdown();
  }, 30_000);
});

describe('in-process durable events', () => {
  it('fails the publish when no consumer has taken the event, so the publisher retries', async () => {
    const events = new InProcessDurableEvents(new InProcessBus());
    await expect(events.publish(Fact, { id: 'x', n: 0 })).rejects.toThrow('No consumer');
    const seen: number[] = [];
    await events.subscribe(Fact, 'billing', async (event) => {
      if (event.n < 0) throw new Error('refused');
      seen.push(event.n);
    });
    await events.publish(Fact, { id: 'y', n: 5 });
    await expect(events.publish(Fact, { id: 'z', n: -1 })).rejects.toThrow('refused');
    expect(seen).toEqual([5]);
  });

  it('drops an event its contract refuses instead of handing it on or failing the publish forever', async () => {
    const events = new InProcessDurableEvents(new InProcessBus());
    const seen: string[] = [];
    await events.subscribe(Fact, 'billing', async (event) => {
      seen.push(event.id);
    });
    await events.publish(Fact, { id: 'bad', n: 'one' } as unknown as FactEvent);
    await events.publish(Fact, { id: 'good', n: 1 });
    expect(seen).toEqual(['good']);
  });

  it('hands on an event its publisher built without validating it again, and validates the same event read back from elsewhere', async () => {
    // An event no contract would accept shows which path validated: only a built one gets through unchecked.
    const unchecked = { id: 'built', n: 'one' } as unknown as FactEvent;
    const events = new InProcessDurableEvents(new InProcessBus());
    const seen: unknown[] = [];
    await events.subscribe(Fact, 'billing', async (event) => {
      seen.push(event);
    });
    const batched: unknown[] = [];
    await events.subscribeBatches(
      BatchedFact,
      'billing',
      async (batch) => {
        batched.push(...batch);
        return batch.map(() => ({ ok: true, value: undefined }));
      },
      { maxItems: 10, maxWaitMs: 5 },
    );

    await events.publish(Fact, unchecked, 'built', { builtByCaller: true });
    await events.publish(Fact, unchecked, 'relayed');
    await events.publish(BatchedFact, unchecked, 'built', { builtByCaller: true });
    await events.publish(BatchedFact, unchecked, 'relayed');

    expect(seen).toEqual([{ id: 'built', n: 'one' }]);
    expect(batched).toEqual([{ id: 'built', n: 'one' }]);
    // The subscriber got the bus's copy, not the publisher's object.
    expect(seen[0]).not.toBe(unchecked);
  });

  it('hands the events published at the same time over as one batch and fails only the publish of a failed one', async () => {
    const events = new InProcessDurableEvents(new InProcessBus());
    const batches: number[][] = [];
    const subscription = await events.subscribeBatches(
      Fact,
      'billing',
      async (batch) => {
        batches.push(batch.map((e) => e.n));
        return batch.map((e) =>
          e.n < 0 ? { ok: false, error: new Error('refused') } : { ok: true, value: undefined },
        );
      },
      { maxItems: 10, maxWaitMs: 5 },
    );
    const published = await Promise.allSettled(
      [1, -2, 3].map((n) => events.publish(Fact, { id: `p${n}`, n })),
    );
    expect(published.map((p) => p.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(batches).toEqual([[1, -2, 3]]);
    await subscription.stop();
  });
});
