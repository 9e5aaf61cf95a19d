import { type ApiKeyPrincipal, MediaContracts, type MediaGeneration } from '@gw/contracts';
import { AppMetrics } from '@gw/platform';
import { expectEventually } from '@gw/testing';
import { MediaTestApp } from './media-test-app';

/** Jobs in Postgres: shared by replicas without doubling, surviving a replica, never overspending. */
describe('media jobs across replicas', () => {
  let app: MediaTestApp;

  const createVideo = (principal: ApiKeyPrincipal, prompt: string, duration = 3) =>
    app.rpc.request(MediaContracts.createGeneration, {
      principal,
      model: 'demo/video',
      params: { prompt, duration },
      async: true,
      surface: 'media',
    });
  const jobRow = async (id: string) => {
    const [row]: Array<{ lease_owner: string | null; provider_job_id: string | null; status: string }> =
      await app.sql.query(
        `SELECT lease_owner, provider_job_id, status FROM media.generations WHERE id = $1`,
        [id],
      );
    return row;
  };
  const settledEvents = async (id: string) =>
    Number(
      (await app.sql.query(`SELECT count(*) AS n FROM media.event_outbox WHERE message_id = $1`, [id]))[0].n,
    );

  beforeAll(async () => {
    app = await MediaTestApp.start({ mockJobMs: 800 }, 2);
  });

  afterAll(async () => {
    await app.stop();
  });

  it('two replicas on one database run each of 20 jobs once: one provider job, one charge each', async () => {
    const principal = await app.customer('1000.00');
    const creates = app.providerCreates.length;
    const created = await Promise.all(
      Array.from({ length: 20 }, (_, i) => createVideo(principal, `clip ${i}`)),
    );
    const done = await Promise.all(created.map((generation) => app.final(principal, generation.id, 30_000)));
    expect(done.map((generation) => generation.status)).toEqual(Array(20).fill('completed'));
    expect(app.providerCreates.length - creates).toBe(20);
    for (const generation of created) expect(await settledEvents(generation.id)).toBe(1);
    // 20 clips of 3 s at 10 RUB a second.
    await expectEventually(async () => expect(Number(await app.balance(principal.organizationId))).toBe(400));
  });

  it('completes a job whose replica died once its lease lapses, charged once', async () => {
    const principal = await app.customer('100.00');
    const [first, second] = app.replicas;
    await app.stopReplica(second);
    const creates = app.providerCreates.length;
    const pending = await createVideo(principal, 'survives [[delay:3000]]');
    const claimed = await expectEventually(async () => {
      const row = await jobRow(pending.id);
      expect(row.provider_job_id).not.toBeNull();
      return row;
    });
    await app.stopReplica(first);
    expect((await jobRow(pending.id)).status).toBe('processing');
    await app.startReplica();

    const done: MediaGeneration = await app.final(principal, pending.id, 30_000);
    expect(done).toMatchObject({ status: 'completed', usage: { cost_rub: 30 } });
    const finished = await jobRow(pending.id);
    expect(finished.provider_job_id).toBe(claimed.provider_job_id);
    expect(finished.lease_owner).not.toBe(claimed.lease_owner);
    expect(app.providerCreates.length - creates).toBe(1);
    expect(await settledEvents(pending.id)).toBe(1);
    expect(await app.history(principal, pending.id)).toMatchObject({
      status: 'completed',
      clientCost: '30.00000000',
    });
    await expectEventually(async () => expect(Number(await app.balance(principal.organizationId))).toBe(70));
    await app.startReplica();
  });

  it('reports a generation its runner ended but died before reporting, and counts it in gw_media_holds_reported_total', async () => {
    const principal = await app.customer('100.00');
    for (const replica of [...app.replicas]) await app.stopReplica(replica);
    const runner = await app.startReplica();
    const pending = await createVideo(principal, 'orphaned [[delay:60000]]');
    await expectEventually(async () => expect((await jobRow(pending.id)).provider_job_id).not.toBeNull());
    const reservation = async () =>
      (
        await app.sql.query(`SELECT status, amount FROM billing.reservations WHERE generation_id = $1`, [
          pending.id,
        ])
      )[0] as { status: string; amount: string } | undefined;
    expect(await reservation()).toMatchObject({ status: 'held', amount: '30.00000000' });
    await app.stopReplica(runner);
    // What a runner that failed the job and died before telling billing leaves behind.
    await app.sql.query(
      `UPDATE media.generations
          SET status = 'failed', error = '{"code":"upstream_error","message":"provider failed"}',
              completed_at = now() - interval '1 minute', next_run_at = NULL, lease_owner = NULL, lease_until = NULL
        WHERE id = $1`,
      [pending.id],
    );
    const keeper = await app.startReplica();
    const reported = async (status: string) =>
      (
        await keeper.get(AppMetrics).registry.getSingleMetric('gw_media_holds_reported_total')!.get()
      ).values.find((sample) => sample.labels['status'] === status)?.value ?? 0;
    await expectEventually(async () => expect(await reported('failed')).toBe(1));
    expect(await reported('completed')).toBe(0);
    expect(await app.history(principal, pending.id)).toMatchObject({ status: 'failed' });
    await expectEventually(async () => expect((await reservation())?.status).toBe('released'));
    expect(Number(await app.balance(principal.organizationId))).toBe(100);
    expect(await settledEvents(pending.id)).toBe(1);
    await app.startReplica();
  });

  it('retries a create call that never reached the provider, and makes it once it can', async () => {
    const principal = await app.customer('100.00');
    for (const replica of [...app.replicas]) await app.stopReplica(replica);
    // Nothing listens on port 9 of this host: the connection is refused before any request is written.
    const cutOff = await app.startReplica({ MOCK_UPSTREAM_URL: 'http://127.0.0.1:9' });
    const creates = app.providerCreates.length;
    const pending = await createVideo(principal, 'once reachable');
    await expectEventually(async () => {
      const [row]: Array<{ retries: number }> = await app.sql.query(
        `SELECT retries FROM media.generations WHERE id = $1`,
        [pending.id],
      );
      expect(row.retries).toBeGreaterThanOrEqual(1);
    });
    await app.stopReplica(cutOff);
    await app.startReplica();
    expect(await app.final(principal, pending.id, 30_000)).toMatchObject({ status: 'completed' });
    expect(app.providerCreates.length - creates).toBe(1);
    await app.startReplica();
  });

  it('50 concurrent videos on a balance that covers 10: never below zero, at least 8 complete', async () => {
    // Each video is 5 s at 10 RUB a second.
    const principal = await app.customer('500.00');
    const attempts = await Promise.allSettled(
      Array.from({ length: 50 }, (_, i) => createVideo(principal, `race ${i}`, 5)),
    );
    const accepted = attempts.flatMap((attempt) => (attempt.status === 'fulfilled' ? [attempt.value] : []));
    const refused = attempts.flatMap((attempt) => (attempt.status === 'rejected' ? [attempt.reason] : []));
    expect(refused.every((err: { code?: string }) => err.code === 'insufficient_balance')).toBe(true);
    expect(accepted.length).toBeLessThanOrEqual(10);
    expect(Number(await app.balance(principal.organizationId))).toBeGreaterThanOrEqual(0);
    const done = await Promise.all(accepted.map((generation) => app.final(principal, generation.id, 30_000)));
    const completed = done.filter((generation) => generation.status === 'completed').length;
    expect(completed).toBeGreaterThanOrEqual(8);
    await expectEventually(async () =>
      expect(Number(await app.balance(principal.organizationId))).toBe(500 - 50 * completed),
    );
  });
});
