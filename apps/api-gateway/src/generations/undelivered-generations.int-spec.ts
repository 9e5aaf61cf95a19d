import { BillingEvents, type GenerationUndeliveredEvent } from '@gw/contracts';
import { JetStreamDurableEvents } from '@gw/platform';
import { expectEventually, startTestNats, type TestNats } from '@gw/testing';
import { randomUUID } from 'node:crypto';
import { UndeliveredGenerations } from './undelivered-generations';

/** The reports are mostly made while the bus is away: they must reach JetStream once it is back. */
describe('UndeliveredGenerations over a NATS restart', () => {
  let nats: TestNats;
  let publisher: JetStreamDurableEvents;
  let subscriber: JetStreamDurableEvents;
  let reports: UndeliveredGenerations;

  beforeAll(async () => {
    nats = await startTestNats();
    publisher = new JetStreamDurableEvents(nats.url);
    subscriber = new JetStreamDurableEvents(nats.url);
    reports = new UndeliveredGenerations(publisher);
    reports.onApplicationBootstrap();
  });

  afterAll(async () => {
    await reports.onApplicationShutdown();
    await subscriber.onApplicationShutdown();
    await publisher.onApplicationShutdown();
    await nats.stop();
  });

  it('stores each report made while the broker is down once it is back, and only once', async () => {
    const received: GenerationUndeliveredEvent[] = [];
    await subscriber.subscribe(BillingEvents.generationUndelivered, 'test-billing', async (event) => {
      received.push(event);
    });
    const organizationId = randomUUID();
    const event = (n: number): GenerationUndeliveredEvent => ({
      generationId: `gen-${n}-${randomUUID()}`,
      organizationId,
      reason: 'The service behind inference.v1.chat-completion did not answer in time',
    });
    const before = event(0);
    reports.report(before);
    await expectEventually(async () => expect(received).toEqual([before]));

    const restart = nats.restart(4_000);
    const during = [event(1), event(2), event(3)];
    for (const report of during) reports.report(report);
    await restart;

    await expectEventually(
      async () =>
        expect(
          received
            .slice(1)
            .map((r) => r.generationId)
            .sort(),
        ).toEqual(during.map((r) => r.generationId).sort()),
      { timeoutMs: 30_000 },
    );
  }, 60_000);
});
