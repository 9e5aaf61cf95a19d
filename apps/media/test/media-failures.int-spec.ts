import { MediaContracts } from '@gw/contracts';
import { MediaTestApp } from './media-test-app';

/** Generations that cannot be finished end `failed` with a code, and cost nothing. */
describe('media generations that cannot be finished', () => {
  let app: MediaTestApp;

  beforeAll(async () => {
    // No room for any file; a job that runs out of time in 1.5 s.
    app = await MediaTestApp.start({
      storage: { STORAGE_QUOTA_BYTES: '1' },
      media: { MEDIA_JOB_DEADLINE_MS: 1_500 },
    });
  });

  afterAll(async () => {
    await app.stop();
  });

  it('fails a generation whose result cannot be stored (the quota is full) at no cost', async () => {
    const principal = await app.customer('100.00');
    const pending = await app.rpc.request(MediaContracts.createGeneration, {
      principal,
      model: 'demo/image',
      params: { prompt: 'nowhere to put it' },
      async: true,
      surface: 'images',
    });
    expect(await app.final(principal, pending.id)).toMatchObject({
      status: 'failed',
      error: { code: 'STORAGE_FAILED', message: 'The result could not be stored' },
    });
    expect(await app.history(principal, pending.id)).toMatchObject({
      status: 'failed',
      clientCost: '0.00000000',
    });
    expect(Number(await app.balance(principal.organizationId))).toBe(100);
  });

  it('fails a job past its deadline with GATEWAY_TIMEOUT, at no cost', async () => {
    const principal = await app.customer('100.00');
    const pending = await app.rpc.request(MediaContracts.createGeneration, {
      principal,
      model: 'demo/video',
      params: { prompt: 'never ends [[delay:60000]]', duration: 3 },
      async: true,
      surface: 'media',
    });
    expect(await app.final(principal, pending.id)).toMatchObject({
      status: 'failed',
      error: { code: 'GATEWAY_TIMEOUT', message: 'The generation did not finish in time' },
    });
    expect(await app.history(principal, pending.id)).toMatchObject({
      status: 'failed',
      clientCost: '0.00000000',
    });
  });
});
