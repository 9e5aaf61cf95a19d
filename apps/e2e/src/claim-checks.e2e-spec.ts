import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import Decimal from 'decimal.js';
import { expectEventually } from '@gw/testing';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DistributedStack } from './support/distributed-stack';
import { startEmbeddedGateway, type EmbeddedGateway } from './support/embedded-gateway';
import { http, seedOrganization } from './support/gateway-http';
import { pcmWavHeader } from './support/wav';

const ADMIN_TOKEN = 'e2e-admin-token-0123456789';
const MAX_AUDIO_BYTES = 25 * 1024 * 1024;

/** A 16 kHz mono 16-bit PCM WAV of silence, `bytes` long in all. */
function silentWav(bytes: number): Buffer {
  const wav = Buffer.alloc(bytes);
  pcmWavHeader(bytes - 44).copy(wav);
  return wav;
}

/** Just under the 25 MB limit: 819 s of audio. */
const LARGE_WAV = silentWav(MAX_AUDIO_BYTES - 1_000);

async function transcribe(api: string, apiKey: string, audio: Buffer) {
  const form = new FormData();
  form.append('file', new Blob([audio], { type: 'audio/wav' }), 'long.wav');
  form.append('response_format', 'verbose_json');
  const response = await fetch(`${api}/v1/audio/transcriptions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}` },
    body: form,
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** The demo catalogue with demo/chat taking prompts of several megabytes, as long-context models do. */
function longContextCatalogue(directory: string): string {
  const catalogue = JSON.parse(
    readFileSync(join(__dirname, '../../../config/catalogue.demo.json'), 'utf8'),
  ) as {
    models: Array<{
      id: string;
      providers: Array<{
        context_length: number | null;
        per_request_limits: { prompt_tokens: number | null };
      }>;
    }>;
  };
  for (const provider of catalogue.models.find((model) => model.id === 'demo/chat')?.providers ?? []) {
    provider.context_length = 4_000_000;
    provider.per_request_limits.prompt_tokens = 4_000_000;
  }
  const path = join(directory, 'catalogue.long-context.json');
  writeFileSync(path, JSON.stringify(catalogue));
  return path;
}

/** Words of prose, `bytes` long. */
const prompt = (bytes: number) =>
  'the quick brown fox jumps over the lazy dog '.repeat(Math.ceil(bytes / 44)).slice(0, bytes);

interface EmbeddingList {
  id: string;
  data: Array<{ index: number; embedding: number[] }>;
  usage: { cost: number };
}

const BATCH = 2_048;

/**
 * The largest embeddings batch the interface takes, 2,048 inputs of demo/embed-large: 3,072 floats
 * each, about 130 MB of JSON, which crosses NATS only by claim check. Answered whole and charged
 * once: history holds this one generation and the balance is the credit less its cost.
 */
async function expectLargeBatchAnsweredAndChargedOnce(api: string, adminToken: string): Promise<void> {
  const org = await seedOrganization(api, adminToken, '100.00');
  const input = Array.from({ length: BATCH }, (_, i) => `word number ${i}`);
  const response = await http<EmbeddingList & { error?: unknown }>('POST', `${api}/v1/embeddings`, {
    token: org.apiKey,
    body: { model: 'demo/embed-large', input },
  });
  expect({ status: response.status, error: response.body.error }).toEqual({ status: 200, error: undefined });
  const { data, id, usage } = response.body;
  expect(data.map((item) => item.index)).toEqual(input.map((_, i) => i));
  expect(data.every((item) => item.embedding.length === 3_072)).toBe(true);
  await expectEventually(async () => {
    const history = await http('GET', `${api}/v1/history/generations?limit=100`, { token: org.apiKey });
    const items = (history.body as { items: Array<{ id: string; cost: string }> }).items;
    expect(items.map((item) => ({ id: item.id, cost: new Decimal(item.cost).toNumber() }))).toEqual([
      { id, cost: usage.cost },
    ]);
    const balance = await http('GET', `${api}/v1/balance`, { token: org.apiKey });
    expect(new Decimal((balance.body as { amount: string }).amount).toString()).toBe(
      new Decimal('100').minus(items[0].cost).toString(),
    );
  });
}

describe('claim checks: a 25 MB transcription in the embedded mode', () => {
  let gateway: EmbeddedGateway;

  beforeAll(async () => {
    gateway = await startEmbeddedGateway('claim-checks');
  }, 120_000);

  afterAll(() => gateway?.stop());

  it('transcribes a file just under 25 MB and leaves no staged object behind', async () => {
    const result = await transcribe(gateway.api, gateway.apiKey, LARGE_WAV);
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({
      text: expect.any(String),
      usage: { durationSeconds: expect.any(Number) },
    });
    // Deleted once the call has ended, which is just after the answer has left.
    const transient = join(gateway.dataDir, 'files', 'transient');
    await expectEventually(() => expect(existsSync(transient) ? readdirSync(transient) : []).toEqual([]));
  });

  it(
    `answers ${BATCH} embeddings of demo/embed-large and charges them once`,
    () => expectLargeBatchAnsweredAndChargedOnce(gateway.api, gateway.adminToken),
    240_000,
  );
});

describe('claim checks in the distributed mode, on a nats-server with its default 1 MB max_payload', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'gw-claim-checks-'));
  const stack = new DistributedStack({
    database: 'e2e_claim_checks',
    adminToken: ADMIN_TOKEN,
    jwtSecret: 'e2e-jwt-secret-0123456789',
    env: { inference: { CATALOGUE_FILE: longContextCatalogue(scratch) } },
  });
  let apiKey: string;

  beforeAll(async () => {
    await stack.start();
    apiKey = (await seedOrganization(stack.api, ADMIN_TOKEN, '3000.00')).apiKey;
  }, 180_000);

  afterAll(async () => {
    await stack.stop();
    rmSync(scratch, { recursive: true, force: true });
  });

  /** The staged objects left in the bucket: none once each call has ended (the sender deletes without waiting). */
  const noTransientObjects = () =>
    expectEventually(async () => {
      const s3 = stack.objectStore;
      const listed = await new S3Client({
        endpoint: s3.endpoint,
        region: 'us-east-1',
        forcePathStyle: true,
        credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
      }).send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: 'transient/' }));
      expect(listed.KeyCount ?? 0).toBe(0);
    });

  it.each([
    ['1.1 MB', 1_100_000],
    ['3.5 MB', 3_500_000],
  ])('answers a %s chat prompt', async (_label, bytes) => {
    const response = await http('POST', `${stack.api}/v1/chat/completions`, {
      token: apiKey,
      body: { model: 'demo/chat', max_tokens: 16, messages: [{ role: 'user', content: prompt(bytes) }] },
    });
    expect({ status: response.status, error: response.body.error }).toEqual({
      status: 200,
      error: undefined,
    });
    expect(response.body.choices[0].message.content).toEqual(expect.any(String));
    expect(response.body.usage.prompt_tokens).toBeGreaterThan(bytes / 10);
    await noTransientObjects();
  });

  it(`answers ${BATCH} embeddings of demo/embed-large and charges them once`, async () => {
    await expectLargeBatchAnsweredAndChargedOnce(stack.api, ADMIN_TOKEN);
    await noTransientObjects();
  }, 240_000);

  it('transcribes a file just under 25 MB', async () => {
    const result = await transcribe(stack.api, apiKey, LARGE_WAV);
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({
      text: expect.any(String),
      usage: { durationSeconds: expect.any(Number) },
    });
    await noTransientObjects();
  });

  it('refuses a body above the edge limit with 413 before any work', async () => {
    const response = await http('POST', `${stack.api}/v1/chat/completions`, {
      token: apiKey,
      body: { model: 'demo/chat', messages: [{ role: 'user', content: prompt(4_300_000) }] },
    });
    expect(response.status).toBe(413);
    expect(response.body.error).toMatchObject({ code: 'payload_too_large' });
  });
});
