import { DomainError } from '@gw/contracts';
import { createBlobStore, WithBlobStore } from '@gw/platform/blobs';
import { loadEnv } from '@gw/platform';
import { startTestS3, type TestS3 } from '@gw/testing';
import { AudioStagingService } from './audio-staging.service';

const WAV = Buffer.concat([Buffer.from('RIFF\x24\x00\x00\x00WAVEfmt '), Buffer.alloc(64)]);

/** Staging transcription audio in a real S3 server, and what the client is told when the store is away. */
describe('AudioStagingService on S3', () => {
  let s3: TestS3;
  let staging: AudioStagingService;

  beforeAll(async () => {
    s3 = await startTestS3();
    staging = new AudioStagingService(createBlobStore(loadEnv(WithBlobStore(class {}), s3.env)));
  });

  afterAll(() => s3?.stop());

  it('stages whole audio under a transient key', async () => {
    const staged = await staging.stageBytes(WAV, 'tone.wav');
    expect(staged).toMatchObject({ size: WAV.length, filename: 'tone.wav', format: 'wav' });
  });

  it('answers a store that is down as unavailable, to retry, not as a fault of the upload', async () => {
    const outage = s3.restart(3_000);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const refused = await staging.stageBytes(WAV, 'tone.wav').catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(DomainError);
    expect(refused).toMatchObject({ code: 'service_unavailable' });
    await outage;
    await expect(staging.stageBytes(WAV, 'tone.wav')).resolves.toMatchObject({ format: 'wav' });
  });
});
