import { expectEventually } from '@gw/testing';
import { Client } from 'pg';
import { DistributedStack } from './support/distributed-stack';
import { http, seedOrganization } from './support/gateway-http';

const ADMIN_TOKEN = 'e2e-admin-token-media-durability';

interface JobRow {
  status: string;
  provider_job_id: string | null;
  lease_owner: string | null;
}

/** The media process killed mid-generation: its job lives in Postgres and another process finishes it, charged once. */
describe('media durability (distributed mode)', () => {
  const stack = new DistributedStack({
    database: 'e2e_media_durability',
    adminToken: ADMIN_TOKEN,
    jwtSecret: 'e2e-jwt-secret-media-durability',
    env: {
      // A short job lease, so that the restarted process takes the job over within seconds.
      media: {
        MEDIA_JOB_LEASE_MS: '2000',
        MEDIA_IDLE_POLL_MS: '300',
        MEDIA_POLL_FIRST_MS: '200',
        MEDIA_POLL_MAX_MS: '500',
        RESERVATION_RENEW_INTERVAL_MS: '1000',
      },
    },
  });

  beforeAll(() => stack.start(), 180_000);

  afterAll(() => stack.stop(), 30_000);

  async function job(id: string): Promise<JobRow> {
    const db = new Client({ connectionString: stack.databaseUrl });
    await db.connect();
    try {
      const { rows } = await db.query<JobRow>(
        `SELECT status, provider_job_id, lease_owner FROM media.generations WHERE id = $1`,
        [id],
      );
      return rows[0];
    } finally {
      await db.end();
    }
  }

  it('completes a video once and charges it once after SIGKILL of the media process and a restart', async () => {
    const org = await seedOrganization(stack.api, ADMIN_TOKEN, '100.00');
    const created = await http('POST', `${stack.api}/v1/media`, {
      token: org.apiKey,
      body: {
        model: 'demo/video',
        params: { prompt: '[[delay:6000]] survive the crash', duration: 3 },
        async: true,
      },
    });
    expect(created.status).toBe(200);
    expect(created.body.status).toBe('pending');
    const id: string = created.body.id;

    // The provider's job exists and media is polling it when the process dies.
    const before = await expectEventually(async () => {
      const row = await job(id);
      expect(row.provider_job_id).not.toBeNull();
      return row;
    });
    await stack.apps.get('media')?.stop('SIGKILL');
    await stack.startService('media');

    const done = await expectEventually(
      async () => {
        const polled = await http('GET', `${stack.api}/v1/media/${id}`, { token: org.apiKey });
        expect(polled.body.status).toBe('completed');
        return polled.body;
      },
      { timeoutMs: 30_000, intervalMs: 250 },
    );
    expect(done).toMatchObject({
      usage: { duration_seconds: 3, cost_rub: 30 },
      data: { url: expect.any(String) },
    });
    const video = await fetch(done.data.url);
    expect(video.status).toBe(200);
    expect(
      Buffer.from(await video.arrayBuffer())
        .subarray(4, 8)
        .toString('ascii'),
    ).toBe('ftyp');

    // One provider job: the restarted process went on polling it rather than creating another.
    const after = await job(id);
    expect(after.provider_job_id).toBe(before.provider_job_id);
    expect(after.lease_owner).not.toBe(before.lease_owner);

    const detail = await expectEventually(async () => {
      const found = await http('GET', `${stack.api}/v1/history/generations/${id}`, { token: org.apiKey });
      expect(found.body.status).toBe('completed');
      return found.body;
    });
    expect(detail).toMatchObject({ requestType: 'video', apiType: 'media', clientCost: '30.00000000' });
    const list = await http('GET', `${stack.api}/v1/history/generations?limit=100`, { token: org.apiKey });
    expect(list.body.items.filter((item: { id: string }) => item.id === id)).toHaveLength(1);
    await expectEventually(async () =>
      expect((await http('GET', `${stack.api}/v1/balance`, { token: org.apiKey })).body.amount).toBe(
        '70.00000000',
      ),
    );
  }, 120_000);
});
