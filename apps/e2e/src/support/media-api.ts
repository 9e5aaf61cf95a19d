import { expectEventually } from '@gw/testing';
import Decimal from 'decimal.js';
import { DistributedStack } from './distributed-stack';
import { startEmbeddedGateway } from './embedded-gateway';
import { http } from './gateway-http';

/** A media Generation record as the tests read it. */
export interface Generation {
  id: string;
  object: string;
  status: 'pending' | 'processing' | 'completed' | 'failed' | 'cancelled';
  created: number;
  model: string;
  completed_at?: number;
  data?: any;
  usage?: Record<string, number>;
  error?: { code: string; message: string };
  warnings?: string[];
}

export interface MediaTarget {
  api: string;
  adminToken: string;
}

const FINAL = ['completed', 'failed', 'cancelled'];

export async function balanceOf(api: string, token: string): Promise<Decimal> {
  const balance = await http('GET', `${api}/v1/balance`, { token });
  expect(balance.status).toBe(200);
  return new Decimal(balance.body.amount);
}

/** Polls GET /v1/media/{id} (as a client would, if faster) until the generation is final. */
export function finalGeneration(
  api: string,
  token: string,
  id: string,
  timeoutMs = 30_000,
): Promise<Generation> {
  return expectEventually(
    async () => {
      const polled = await http<Generation>('GET', `${api}/v1/media/${id}`, { token });
      expect(polled.status).toBe(200);
      expect(FINAL).toContain(polled.body.status);
      return polled.body;
    },
    { timeoutMs, intervalMs: 250 },
  );
}

/** The history detail of a generation, once billing has recorded its final state. */
export function historyDetail(api: string, token: string, id: string): Promise<Record<string, any>> {
  return expectEventually(
    async () => {
      const detail = await http('GET', `${api}/v1/history/generations/${id}`, { token });
      expect(detail.status).toBe(200);
      expect(detail.body.status).not.toBe('pending');
      return detail.body as Record<string, any>;
    },
    { timeoutMs: 20_000, intervalMs: 200 },
  );
}

/**
 * The id of the history item `action` adds: billing records a generation after its answer (in the
 * distributed mode by a durable event, later still), so the newest item is only `action`'s once
 * the count has grown.
 */
export async function historyItemAddedBy(
  api: string,
  token: string,
  action: () => Promise<unknown>,
): Promise<string> {
  const newest = () => http('GET', `${api}/v1/history/generations?limit=1`, { token });
  const before = (await newest()).body.meta.total as number;
  await action();
  return expectEventually(
    async () => {
      const list = await newest();
      expect(list.body.meta.total).toBe(before + 1);
      return list.body.items[0].id as string;
    },
    { timeoutMs: 20_000, intervalMs: 200 },
  );
}

/** The request bodies Swagger UI offers for a route's "Try it out", by example name. */
export async function documentedExamples(api: string, path: string): Promise<Record<string, unknown>> {
  const doc = (await http('GET', `${api}/docs-json`)).body;
  const examples = doc.paths[`/api${path}`].post.requestBody.content['application/json'].examples;
  return Object.fromEntries(
    Object.entries(examples as Record<string, { value: unknown }>).map(([name, example]) => [
      name,
      example.value,
    ]),
  );
}

/** Waits until the balance has come to `expected` (settlement follows the answer) and stays there. */
export async function expectBalance(api: string, token: string, expected: Decimal): Promise<void> {
  await expectEventually(
    async () => expect((await balanceOf(api, token)).toString()).toBe(expected.toString()),
    {
      timeoutMs: 20_000,
      intervalMs: 200,
    },
  );
}

/**
 * Runs `suite` against the built embedded app and against the distributed stack, each with `env`
 * for the gateway (the embedded app hands SYNC_WAIT_MS on to it) and the media service.
 */
export function inBothModes(
  name: string,
  label: string,
  env: Record<string, string>,
  suite: (mode: string, open: () => Promise<MediaTarget>) => void,
): void {
  describe(name, () => {
    let stopEmbedded: (() => Promise<void>) | undefined;
    afterAll(() => stopEmbedded?.());
    suite('embedded', async () => {
      const gateway = await startEmbeddedGateway(label, env);
      stopEmbedded = () => gateway.stop();
      return gateway;
    });
  });

  describe(name, () => {
    const adminToken = `e2e-${label}-admin-token-0123456789`;
    const stack = new DistributedStack({
      database: `e2e_${label}`,
      adminToken,
      jwtSecret: `e2e-${label}-jwt-secret-0123456789`,
      env: { 'api-gateway': env, media: env },
    });
    afterAll(() => stack.stop());
    suite('distributed', async () => {
      await stack.start();
      return { api: stack.api, adminToken };
    });
  });
}
