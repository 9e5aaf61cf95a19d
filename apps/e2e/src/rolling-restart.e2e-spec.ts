import { type AppProcess } from './support/app-process';
import { DistributedStack } from './support/distributed-stack';
import { http, seedOrganization, sseData } from './support/gateway-http';

const ADMIN_TOKEN = 'e2e-admin-token-rolling-restart';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Outcome {
  status: number;
  /** A stream that ended with its [DONE], or an answer that is whole. */
  complete: boolean;
  stream: boolean;
}

/**
 * A rollout as Kubernetes runs one, under load: two replicas of the gateway and of inference,
 * replaced one at a time. A gateway leaves the rotation first (what the preStop sleep gives the
 * endpoints), then hears SIGTERM; an inference replica hears SIGTERM and leaves its queue group.
 * No request may fail and no stream may be cut (issue 23, rollouts that cut nothing).
 */
describe('rolling restart (distributed mode)', () => {
  const stack = new DistributedStack({
    database: 'e2e_rolling_restart',
    adminToken: ADMIN_TOKEN,
    jwtSecret: 'e2e-jwt-secret-rolling-restart',
  });
  let apiKey: string;
  /** The gateways the "Service" balances over, as base URLs with their processes. */
  const rotation = new Map<string, AppProcess>();
  const newestApp = () => [...stack.apps.values()].at(-1) as AppProcess;

  async function addGateway(): Promise<void> {
    const api = await stack.startGatewayReplica();
    rotation.set(api, newestApp());
  }

  beforeAll(async () => {
    await stack.start();
    rotation.set(stack.api, stack.apps.get('api-gateway') as AppProcess);
    await addGateway();
    await stack.startServiceReplica('inference');
    apiKey = (await seedOrganization(stack.api, ADMIN_TOKEN, '1000.00')).apiKey;
  }, 240_000);

  afterAll(() => stack.stop(), 60_000);

  async function chat(api: string, stream: boolean): Promise<Outcome> {
    const result = await http('POST', `${api}/v1/chat/completions`, {
      token: apiKey,
      body: {
        model: 'demo/chat',
        stream,
        messages: [
          { role: 'user', content: stream ? '[[slow:80]] a streamed answer' : '[[delay:600]] an answer' },
        ],
      },
    }).catch(() => ({ status: 0, text: '', body: undefined }));
    const complete = stream
      ? sseData(result.text).at(-1) === '[DONE]' && !result.text.includes('"error"')
      : typeof (result.body as { choices?: Array<{ message?: { content?: string } }> } | undefined)
          ?.choices?.[0]?.message?.content === 'string';
    return { status: result.status, complete, stream };
  }

  async function stopped(app: AppProcess): Promise<number | null> {
    const exit = new Promise<number | null>((resolve) => app.child.once('exit', (code) => resolve(code)));
    app.child.kill('SIGTERM');
    return exit;
  }

  it('replaces every gateway and inference replica one at a time with no failed request and no cut stream', async () => {
    const outcomes: Outcome[] = [];
    let loading = true;
    let turn = 0;
    const worker = async () => {
      while (loading) {
        const apis = [...rotation.keys()];
        const api = apis[turn++ % apis.length];
        outcomes.push(await chat(api, turn % 2 === 0));
      }
    };
    const workers = Array.from({ length: 6 }, worker);
    await sleep(1_500);

    const exits: Array<number | null> = [];
    // The stack keeps the handles of the stopped replicas (it skips them when it stops).
    for (const [, app] of [...stack.apps.entries()].filter(([key]) => key.startsWith('inference'))) {
      exits.push(await stopped(app));
      await stack.startServiceReplica('inference');
      await sleep(1_000);
    }
    for (const [api, app] of [...rotation.entries()]) {
      rotation.delete(api);
      // The endpoints leave first: a request the balancer already sent still arrives.
      await sleep(300);
      exits.push(await stopped(app));
      await addGateway();
      await sleep(1_000);
    }
    loading = false;
    await Promise.all(workers);

    expect(exits).toEqual([0, 0, 0, 0]);
    const failed = outcomes.filter((o) => o.status !== 200 || !o.complete);
    expect({ failed, total: outcomes.length > 40 }).toEqual({ failed: [], total: true });
    expect(outcomes.filter((o) => o.stream).length).toBeGreaterThan(10);
  }, 240_000);
});
