import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import {
  type EmbeddingRequest,
  EmbeddingsContracts,
  InferenceContracts,
  type Principal,
  type ReserveCreditRequest,
} from '@gw/contracts';
import { InferenceTestApp } from './inference-test-app';
import { apiKeyPrincipal, POOR_ORGANIZATION } from '@gw/testing';

describe('inference embeddings over NATS, Postgres and mock-upstream', () => {
  let app: InferenceTestApp;
  const organizationId = randomUUID();
  const principal = apiKeyPrincipal({ organizationId });
  const embed = (body: Record<string, unknown>, who: Principal = principal) =>
    app.rpc.request(EmbeddingsContracts.create, { principal: who, body } as unknown as EmbeddingRequest);

  beforeAll(async () => {
    app = await InferenceTestApp.start({ UPSTREAM_TIMEOUT_MS: 2_000 });
  });

  afterAll(async () => {
    await app.stop();
  });

  it('embeds each input at its index, reserves the bound and settles the cost through the finished event', async () => {
    const list = await embed({ model: 'demo/embed-large', input: ['hello world', 'second input text'] });
    // Mock Alpha counts ceil(bytes / 4) per input: 3 + 5 = 8 tokens; 8 × 13 RUB per million = 0.000104.
    expect(list).toMatchObject({
      object: 'list',
      model: 'demo/embed-large',
      usage: { prompt_tokens: 8, total_tokens: 8, cost_rub: 0.000104, cost: 0.000104 },
    });
    expect(list.id).toMatch(/^gen-[0-9a-f-]{36}$/);
    expect(list.data.map((item) => [item.object, item.index, (item.embedding as number[]).length])).toEqual([
      ['embedding', 0, 3072],
      ['embedding', 1, 3072],
    ]);
    expect(list.data[0].embedding).not.toEqual(list.data[1].embedding);
    // The bound: (11 + 8) + (17 + 8) = 44 tokens × 13 per million; the input is known, so least and most agree.
    expect(app.reserveRequests.find((r) => r.generationId === list.id)).toMatchObject({
      organizationId,
      maxAmount: '0.000572',
      minAmount: '0.000572',
      model: 'demo/embed-large',
      requestType: 'embedding',
      apiType: 'embeddings',
      responseMode: 'sync',
    });
    expect(await app.eventOf(list.id)).toMatchObject({
      status: 'completed',
      cost: '0.000104',
      provider: 'Mock Alpha',
      model: 'demo/embed-large',
      modelDisplayName: 'Demo Embed Large',
      requestType: 'embedding',
      apiType: 'embeddings',
      responseMode: 'sync',
      usage: { prompt_tokens: 8, completion_tokens: 0, total_tokens: 8 },
      attemptsCount: 1,
      apiKeyShort: 'abc123',
    });
  });

  it('answers base64 as the little-endian float32 bytes of the float answer', async () => {
    const floats = await embed({ model: 'demo/embed-small', input: 'same text' });
    const encoded = await embed({ model: 'demo/embed-small', input: 'same text', encoding_format: 'base64' });
    const bytes = Buffer.from(encoded.data[0].embedding as string, 'base64');
    const decoded = Array.from(new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4));
    expect(decoded).toHaveLength(1536);
    expect(decoded).toEqual(floats.data[0].embedding);
    // "same text" is 9 bytes: 3 tokens × 2 RUB per million.
    expect(encoded.usage).toMatchObject({ prompt_tokens: 3, cost_rub: 0.000006 });
  });

  it.each([
    ['demo/embed-large', 3072],
    ['demo/embed-small', 1536],
  ])('takes every optional field written as null on %s as left out', async (model, dimensions) => {
    const list = await embed({
      model,
      input: 'unset fields',
      dimensions: null,
      encoding_format: null,
      user: null,
    });
    expect(list.data.map((item) => (item.embedding as number[]).length)).toEqual([dimensions]);
    expect(await app.eventOf(list.id)).toMatchObject({ status: 'completed', model });
  });

  it('passes dimensions to a model that takes them', async () => {
    const list = await embed({ model: 'demo/embed-large', input: 'short', dimensions: 256 });
    expect((list.data[0].embedding as number[]).length).toBe(256);
  });

  it.each<[string, Record<string, unknown>, Record<string, unknown>]>([
    [
      'dimensions on a model that does not take them',
      { model: 'demo/embed-small', input: 'x', dimensions: 512 },
      { code: 'invalid_request', param: 'dimensions' },
    ],
    [
      'dimensions above the maximum',
      { model: 'demo/embed-large', input: 'x', dimensions: 4096 },
      { code: 'invalid_request', param: 'dimensions' },
    ],
    [
      'dimensions of 0',
      { model: 'demo/embed-large', input: 'x', dimensions: 0 },
      { code: 'invalid_request', status: 400 },
    ],
    [
      'a model alias, which embeddings do not take',
      { model: 'demo/embed-large@provider=Mock Alpha', input: 'x' },
      { code: 'invalid_model', param: 'model' },
    ],
    ['a chat model', { model: 'demo/chat', input: 'x' }, { code: 'invalid_model', param: 'model' }],
    [
      'an empty input list',
      { model: 'demo/embed-large', input: [] },
      { code: 'invalid_request', status: 400 },
    ],
    [
      'an empty string among the inputs',
      { model: 'demo/embed-large', input: ['a', ''] },
      { code: 'invalid_request', status: 400 },
    ],
    [
      'token arrays',
      { model: 'demo/embed-large', input: [1, 2, 3] },
      { code: 'invalid_request', status: 400 },
    ],
    [
      'an unknown encoding_format',
      { model: 'demo/embed-large', input: 'x', encoding_format: 'int8' },
      { code: 'invalid_request', status: 400 },
    ],
  ])('refuses %s before reserving anything', async (_label, body, error) => {
    const before = app.reserveRequests.length;
    await expect(embed(body)).rejects.toMatchObject(error);
    expect(app.reserveRequests.length).toBe(before);
  });

  it('serves an input of exactly the context length, 8192 tokens by the estimate', async () => {
    const list = await embed({ model: 'demo/embed-small', input: 'a'.repeat(8192 * 4) });
    expect(list.usage.prompt_tokens).toBe(8192);
  });

  it.each<[string, Record<string, unknown>, string]>([
    // 40 000 bytes are about 10 000 tokens; demo/embed-small's context_length is 8192.
    [
      'a text longer than the context length',
      { model: 'demo/embed-small', input: 'a'.repeat(40_000) },
      'input',
    ],
    [
      'the one list item longer than the context length',
      { model: 'demo/embed-large', input: ['short', 'a'.repeat(40_000)] },
      'input[1]',
    ],
  ])('refuses %s before reserving, naming it', async (_label, body, param) => {
    const before = app.reserveRequests.length;
    await expect(embed(body)).rejects.toMatchObject({
      code: 'invalid_request',
      status: 400,
      param,
      message: expect.stringContaining('at most 8192'),
    });
    expect(app.reserveRequests.length).toBe(before);
  });

  it('refuses more than 2048 inputs, as OpenAI does, before reserving', async () => {
    const before = app.reserveRequests.length;
    await expect(
      embed({ model: 'demo/embed-small', input: Array.from({ length: 2049 }, () => 'x') }),
    ).rejects.toMatchObject({ code: 'invalid_request', status: 400 });
    expect(app.reserveRequests.length).toBe(before);
  });

  it('records a provider failure as failed at no cost', async () => {
    const error = await embed({ model: 'demo/embed-large', input: ['fine', 'boom [[fail:502]]'] }).catch(
      (err: unknown) => err,
    );
    expect(error).toMatchObject({ code: 'upstream_error', status: 502 });
    const reserve = app.reserveRequests.at(-1) as ReserveCreditRequest;
    expect(await app.eventOf(reserve.generationId)).toMatchObject({
      status: 'failed',
      cost: '0',
      requestType: 'embedding',
      error: { code: 'upstream_error' },
      attemptsCount: 1,
    });
  });

  it('publishes nothing when billing refuses the reservation', async () => {
    const poor: Principal = { ...principal, organizationId: POOR_ORGANIZATION };
    await expect(embed({ model: 'demo/embed-small', input: 'x' }, poor)).rejects.toMatchObject({
      code: 'insufficient_balance',
      status: 402,
    });
    const reserve = app.reserveRequests.at(-1) as ReserveCreditRequest;
    expect(reserve.organizationId).toBe(POOR_ORGANIZATION);
    // The outbox row is committed before the service answers, so its absence now is final.
    const ds = await new DataSource({ type: 'postgres', url: app.db.url }).initialize();
    try {
      expect(
        await ds.query(`SELECT 1 FROM inference.event_outbox WHERE message_id = $1`, [reserve.generationId]),
      ).toEqual([]);
    } finally {
      await ds.destroy();
    }
  });

  it('filters the model list by type and endpoint', async () => {
    const byType = await app.rpc.request(InferenceContracts.listModels, { type: 'embedding' });
    expect(byType.data.map((m) => m.id)).toEqual(['demo/embed-small', 'demo/embed-large']);
    const byEndpoint = await app.rpc.request(InferenceContracts.listModels, {
      endpoint: '/v1/audio/transcriptions',
    });
    expect(byEndpoint.data.map((m) => m.id)).toEqual(['demo/whisper', 'demo/transcribe-diarize']);
    await expect(app.rpc.request(InferenceContracts.listModels, { type: 'spaceship' })).rejects.toMatchObject(
      { code: 'invalid_request', param: 'type' },
    );
  });
});
