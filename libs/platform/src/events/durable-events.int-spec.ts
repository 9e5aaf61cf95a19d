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
});
