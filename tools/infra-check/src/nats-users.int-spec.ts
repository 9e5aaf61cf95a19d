import * as contracts from '@gw/contracts';
import { BillingEvents, durableEvent, type RequestContract } from '@gw/contracts';
// The permissions name the platform's own subjects and are tried with its own NATS clients.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { JetStreamDurableEvents, JetStreamRateLimitStore } from '@gw/platform';
import { expectEventually, startTestNats, type TestNats } from '@gw/testing';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { IsString } from 'class-validator';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { creditAndAdminContracts, NATS_USERS, passwordVariable } from './nats-users';

// The generated users on a real nats-server started with deploy/nats/nats.conf: what the
// permissions let through and what they stop.

const ROOT = join(__dirname, '../../..');
const USERS = Object.keys(NATS_USERS);
// nats-server reads a variable's value as a config token: a password starts with a letter (NATS_PASSWORD's rule).
const PASSWORDS = Object.fromEntries(USERS.map((user) => [user, `p${randomBytes(18).toString('hex')}`]));
// Every credit and admin request the contracts name (billing.v1.add-credits and all of auth.v1.admin.*),
// with the user that serves it: a new admin contract is tried here without anyone listing it.
const ADMIN_AND_CREDIT = creditAndAdminContracts(contracts).map((contract) => ({
  subject: contract.subject,
  server: USERS.find((user) => NATS_USERS[user].serves.includes(contract)) as string,
}));

/** A stand-in event on the real subject: this checks the bus, not billing's event schema. */
class GenerationEventProbe {
  @IsString()
  generationId!: string;
}
const generationFinished = durableEvent(BillingEvents.generationFinished.subject, GenerationEventProbe);

describe('NATS users (deploy/nats/nats.conf on a real nats-server)', () => {
  let nats: TestNats;
  const connections: NatsConnection[] = [];
  const as = async (user: string): Promise<NatsConnection> => {
    const nc = await connect({ servers: nats.url, user, pass: PASSWORDS[user], reconnect: false });
    connections.push(nc);
    return nc;
  };

  beforeAll(async () => {
    nats = await startTestNats({
      configFile: join(ROOT, 'deploy/nats/nats.conf'),
      env: Object.fromEntries(USERS.map((user) => [passwordVariable(user), PASSWORDS[user]])),
    });
  });

  afterAll(async () => {
    await Promise.all(connections.map((nc) => nc.close()));
    await nats.stop();
  });

  it('refuses a client without credentials, and one with a wrong password', async () => {
    await expect(connect({ servers: nats.url, reconnect: false })).rejects.toThrow(/authorization/i);
    await expect(
      connect({ servers: nats.url, user: 'inference', pass: PASSWORDS.billing, reconnect: false }),
    ).rejects.toThrow(/authorization/i);
  });

  it('tries every credit and admin subject of the contracts, each with the user that serves it', () => {
    expect(ADMIN_AND_CREDIT.map(({ subject }) => subject)).toEqual(
      expect.arrayContaining([
        'billing.v1.add-credits',
        'auth.v1.admin.create-user',
        'auth.v1.admin.create-api-key',
      ]),
    );
    expect(
      ADMIN_AND_CREDIT.filter(({ subject }) => subject.startsWith('auth.v1.admin.')).length,
    ).toBeGreaterThanOrEqual(6);
    expect(ADMIN_AND_CREDIT.filter(({ server }) => !server)).toEqual([]);
  });

  it.each(USERS.filter((user) => user !== 'api-gateway'))(
    'stops %s from sending credit and admin requests, which reach their service from the gateway',
    async (user) => {
      const received: string[] = [];
      // Each subject answered by the service that serves it, as its user.
      const servers = new Map<string, NatsConnection>();
      for (const { subject, server } of ADMIN_AND_CREDIT) {
        if (!servers.has(server)) servers.set(server, await as(server));
        const nc = servers.get(server) as NatsConnection;
        nc.subscribe(subject, {
          callback: (err, message) => {
            if (err) return;
            received.push(`${subject} ${message.string()}`);
            message.respond('ok');
          },
        });
        await nc.flush();
      }
      const intruder = await as(user);
      await Promise.all(
        ADMIN_AND_CREDIT.map(({ subject }) =>
          expect(intruder.request(subject, 'intruder', { timeout: 1_000 })).rejects.toThrow(),
        ),
      );
      expect(received).toEqual([]);

      const gateway = await as('api-gateway');
      for (const { subject } of ADMIN_AND_CREDIT) {
        await expect(gateway.request(subject, 'gateway', { timeout: 2_000 })).resolves.toBeDefined();
      }
      expect(received).toEqual(ADMIN_AND_CREDIT.map(({ subject }) => `${subject} gateway`));
      // These responders would answer the next tests' requests on the same subjects.
      await Promise.all([...servers.values()].map((nc) => nc.close()));
    },
  );

  it.each(USERS)(
    'lets %s serve every request it handles, and its callers send it and probe its liveness',
    async (user) => {
      const service = await as(user);
      const served = NATS_USERS[user].serves.filter((c): c is RequestContract => c.kind !== 'broadcast');
      for (const contract of served) {
        for (const subject of [contract.subject, `liveness.${contract.subject}`]) {
          service.subscribe(subject, {
            queue: user,
            callback: (err, m) => {
              if (!err) m.respond(subject);
            },
          });
        }
      }
      await service.flush();
      for (const contract of served) {
        const callers = USERS.filter((caller) => NATS_USERS[caller].calls.includes(contract));
        expect({ subject: contract.subject, callers: callers.length > 0 }).toEqual({
          subject: contract.subject,
          callers: true,
        });
        for (const caller of callers) {
          const nc = await as(caller);
          for (const subject of [contract.subject, `liveness.${contract.subject}`]) {
            const reply = await nc.request(subject, '', { timeout: 2_000 });
            expect(reply.string()).toBe(subject);
          }
        }
      }
    },
  );

  it.each(USERS)('lets %s receive the broadcasts it handles from those that emit them', async (user) => {
    const service = await as(user);
    const broadcasts = NATS_USERS[user].serves.filter((c) => c.kind === 'broadcast');
    const received: string[] = [];
    for (const contract of broadcasts) {
      service.subscribe(contract.subject, {
        callback: (err, m) => {
          if (!err) received.push(m.subject);
        },
      });
    }
    await service.flush();
    const expected: string[] = [];
    for (const contract of broadcasts) {
      for (const emitter of USERS.filter((u) => NATS_USERS[u].calls.includes(contract))) {
        const nc = await as(emitter);
        nc.publish(contract.subject, '{}');
        await nc.flush();
        expected.push(contract.subject);
      }
    }
    await expectEventually(() => expect(received.sort()).toEqual(expected.sort()));
  });

  it('lets inference and media publish generation events that billing consumes, with the real JetStream client', async () => {
    const auth = (user: string) => ({ user, pass: PASSWORDS[user] });
    const seen: string[] = [];
    const billing = new JetStreamDurableEvents(nats.url, { auth: auth('billing') });
    const subscription = await billing.subscribe(generationFinished, 'billing-test', async (event) => {
      seen.push(event.generationId);
    });
    for (const user of ['inference', 'media']) {
      const publisher = new JetStreamDurableEvents(nats.url, { auth: auth(user) });
      await publisher.publish(generationFinished, { generationId: user }, `finished-${user}`);
      await publisher.onApplicationShutdown();
    }
    await expectEventually(() => expect(seen.sort()).toEqual(['inference', 'media']));
    await subscription.stop();
    await billing.onApplicationShutdown();
  });

  it('lets the gateway keep its rate-limit counters in JetStream', async () => {
    const store = new JetStreamRateLimitStore(nats.url, {
      user: 'api-gateway',
      pass: PASSWORDS['api-gateway'],
    });
    await store.update<number>('key-1', 60_000, (current) => (current ?? 0) + 1);
    await expect(store.update<number>('key-1', 60_000, (current) => (current ?? 0) + 1)).resolves.toBe(2);
    await expect(store.get<number>('key-1')).resolves.toBe(2);
    await store.onApplicationShutdown();
  });

  it('lets inference probe whether a caller is still there, and every app answer for itself', async () => {
    for (const user of USERS) {
      const nc = await as(user);
      nc.subscribe(`presence.${user}-process`, {
        callback: (err, m) => {
          if (!err) m.respond('here');
        },
      });
      await nc.flush();
      const inference = await as('inference');
      await expect(
        inference.request(`presence.${user}-process`, '', { timeout: 2_000 }),
      ).resolves.toBeDefined();
    }
  });
});
