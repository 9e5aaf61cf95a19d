import { MediaContracts } from '@gw/contracts';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MediaTestApp } from './media-test-app';

/** Base64 images are larger than a NATS message may be: the reply crosses by claim check, never inside a message. */
describe('media replies larger than the bus carries', () => {
  let app: MediaTestApp;
  const config = join(mkdtempSync(join(tmpdir(), 'gw-media-nats-')), 'nats.conf');

  beforeAll(async () => {
    writeFileSync(config, 'max_payload: 32768\n');
    app = await MediaTestApp.start({ natsConfigFile: config });
  });

  afterAll(async () => {
    await app.stop();
  });

  it('answers ten base64 images above max_payload whole', async () => {
    const principal = await app.customer('100.00');
    const pending = await app.rpc.request(MediaContracts.createGeneration, {
      principal,
      model: 'demo/image',
      params: { prompt: 'ten of them', n: 10, size: '1792x1024' },
      async: false,
      surface: 'images',
    });
    await app.final(principal, pending.id);
    const result = await app.rpc.request(MediaContracts.imageResult, {
      principal,
      id: pending.id,
      responseFormat: 'b64_json',
    });
    expect(result.data).toHaveLength(10);
    expect(JSON.stringify(result).length).toBeGreaterThan(32_768);
    for (const image of result.data) {
      expect(
        Buffer.from(image.b64_json as string, 'base64')
          .subarray(1, 4)
          .toString('ascii'),
      ).toBe('PNG');
    }
  });
});
