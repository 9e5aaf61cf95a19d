import { DistributedStack } from './support/distributed-stack';
import { http, seedOrganization } from './support/gateway-http';

const ADMIN_TOKEN = 'e2e-admin-token-rollouts';

/**
 * SIGTERM is how Kubernetes ends a pod in a rollout: the process must finish what it is serving,
 * a streamed chat included, before it exits (issue 23, rollouts that cut nothing).
 */
describe('rollouts (distributed mode)', () => {
  const stack = new DistributedStack({
    database: 'e2e_rollouts',
    adminToken: ADMIN_TOKEN,
    jwtSecret: 'e2e-jwt-secret-rollouts',
  });
  let apiKey: string;

  beforeAll(async () => {
    await stack.start();
    apiKey = (await seedOrganization(stack.api, ADMIN_TOKEN, '100.00')).apiKey;
  }, 180_000);

  afterAll(() => stack.stop(), 60_000);

  /** A chat that takes about two seconds: a stream of slow pieces, or one answer after a delay. */
  const slowChat = (api: string, stream: boolean) =>
    http('POST', `${api}/v1/chat/completions`, {
      token: apiKey,
      body: {
        model: 'demo/chat',
        stream,
        messages: [
          { role: 'user', content: stream ? '[[slow:250]] count slowly' : '[[delay:2000]] answer late' },
        ],
      },
    });

  function exitOf(app: string): Promise<number | null> {
    const child = stack.apps.get(app)!.child;
    return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  }

  it('a service stopped by SIGTERM finishes the chats it serves, streams included, and exits cleanly', async () => {
    const inFlight = [slowChat(stack.api, true), slowChat(stack.api, false)];
    // Both are upstream by now, and run for about two more seconds.
    await new Promise((resolve) => setTimeout(resolve, 700));
    const exited = exitOf('inference');
    stack.apps.get('inference')!.child.kill('SIGTERM');

    const [streamed, answered] = await Promise.all(inFlight);
    expect(streamed.status).toBe(200);
    expect(streamed.text.trimEnd().endsWith('data: [DONE]')).toBe(true);
    expect(answered.status).toBe(200);
    expect(answered.body.choices[0].message.content).toEqual(expect.any(String));
    await expect(exited).resolves.toBe(0);
    await stack.startService('inference');
  }, 90_000);

  it('the gateway stopped by SIGTERM refuses new connections and finishes its requests in flight', async () => {
    const inFlight = [slowChat(stack.api, true), slowChat(stack.api, false)];
    await new Promise((resolve) => setTimeout(resolve, 700));
    const exited = exitOf('api-gateway');
    stack.apps.get('api-gateway')!.child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 200));
    await expect(fetch(`${stack.api}/health`)).rejects.toThrow();

    const [streamed, answered] = await Promise.all(inFlight);
    expect(streamed.status).toBe(200);
    expect(streamed.text.trimEnd().endsWith('data: [DONE]')).toBe(true);
    expect(answered.status).toBe(200);
    await expect(exited).resolves.toBe(0);
  }, 90_000);
});
