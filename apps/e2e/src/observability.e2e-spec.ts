import { expectEventually, freePort } from '@gw/testing';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DistributedStack } from './support/distributed-stack';
import { http, seedOrganization, sseData, type SeededOrganization } from './support/gateway-http';
import { finalGeneration } from './support/media-api';
import { pcmWavHeader } from './support/wav';
import { type CollectedSpan, OtlpCollector } from './support/otlp-collector';

const ADMIN_TOKEN = 'e2e-admin-token-observability';
const JWT_SECRET = 'e2e-jwt-secret-observability';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/**
 * The providers' keys the demo catalogue names (`apiKeyEnv`, MOCK_UPSTREAM_API_KEY): inference and
 * media send them to the mock provider, so each gets a value of this test's own to look for in the logs.
 */
const PROVIDER_KEYS: Record<string, string> = Object.fromEntries(
  [
    ...readFileSync(join(__dirname, '../../../config/catalogue.demo.json'), 'utf8').matchAll(
      /"apiKeyEnv":\s*"([A-Z0-9_]+)"/g,
    ),
  ].map(([, name]) => [name, `e2e-${name.toLowerCase().replace(/_/g, '-')}-observability`]),
);

/** The value of one sample of a scrape, 0 when the series is not there yet. */
function sample(scrape: string, series: string): number {
  const line = scrape.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

/**
 * The operator's view of the distributed mode: every response names its request, the id reaches the
 * log lines of the gateway and of inference, `/metrics` on the gateway and on a service's health
 * port count what the traffic did, and no secret the test used shows up in any app's output.
 */
describe('observability (distributed mode)', () => {
  let stack: DistributedStack;
  let inferenceMetrics: string;
  let billingMetrics: string;
  let mediaMetrics: string;
  let gatewayMetrics: string;
  let org: SeededOrganization;

  const collector = new OtlpCollector();

  beforeAll(async () => {
    const [inferencePort, billingPort, mediaPort] = [await freePort(), await freePort(), await freePort()];
    await collector.start();
    // Every app exports its spans to the stand-in collector, in batches a tenth of a second apart.
    const tracing = { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_BSP_SCHEDULE_DELAY: '100' };
    stack = new DistributedStack({
      database: 'e2e_observability',
      adminToken: ADMIN_TOKEN,
      jwtSecret: JWT_SECRET,
      env: {
        'api-gateway': tracing,
        auth: tracing,
        storage: tracing,
        inference: { HEALTH_PORT: String(inferencePort), ...tracing, ...PROVIDER_KEYS },
        billing: { HEALTH_PORT: String(billingPort), ...tracing },
        media: { HEALTH_PORT: String(mediaPort), ...tracing, ...PROVIDER_KEYS },
      },
    });
    await stack.start();
    inferenceMetrics = `http://127.0.0.1:${inferencePort}/metrics`;
    billingMetrics = `http://127.0.0.1:${billingPort}/metrics`;
    mediaMetrics = `http://127.0.0.1:${mediaPort}/metrics`;
    gatewayMetrics = stack.api.replace(/\/api$/, '/metrics');
    org = await seedOrganization(stack.api, ADMIN_TOKEN, '100.00');
  }, 180_000);

  afterAll(async () => {
    await stack?.stop();
    await collector.stop();
  }, 30_000);

  const chat = (content: string, extra: object = {}, headers: Record<string, string> = {}) =>
    http('POST', `${stack.api}/v1/chat/completions`, {
      token: org.apiKey,
      headers,
      body: { model: 'demo/chat', messages: [{ role: 'user', content }], ...extra },
    });
  const scrape = async (url: string) => (await http<string>('GET', url)).text;
  /** The gateway's access-log line of the request with this id. */
  const accessLine = (requestId: string) => {
    const line = stack.apps
      .get('api-gateway')!
      .output()
      .split('\n')
      .find((l) => l.includes(`"requestId":"${requestId}"`) && l.includes('"context":"AccessLog"'));
    return line === undefined ? undefined : (JSON.parse(line) as Record<string, unknown>);
  };

  it("echoes the client's request id and finds it in the gateway's and inference's log lines", async () => {
    const answered = await chat('Hello, ids', {}, { 'x-request-id': 'my-ok-id' });
    expect(answered.status).toBe(200);
    expect(answered.headers.get('x-request-id')).toBe('my-ok-id');
    // A failed upstream call, so that inference has something to say about the request.
    const res = await chat(
      '[[fail:500]] ids',
      { provider: { only: ['Mock Alpha'] } },
      { 'x-request-id': 'my-id-123' },
    );
    expect(res.status).toBe(502);
    expect(res.headers.get('x-request-id')).toBe('my-id-123');
    const logged = (app: string) =>
      stack.apps
        .get(app)!
        .output()
        .split('\n')
        .filter((line) => line.includes('"requestId":"my-id-123"'));
    await expectEventually(() => {
      expect(logged('api-gateway').some((line) => line.includes('"context":"AccessLog"'))).toBe(true);
      expect(logged('inference').some((line) => line.includes('Mock Alpha failed for demo/chat'))).toBe(true);
    });
    const access = JSON.parse(logged('api-gateway').find((line) => line.includes('AccessLog'))!);
    expect(access).toMatchObject({
      service: 'api-gateway',
      level: 'info',
      method: 'POST',
      route: '/api/v1/chat/completions',
      status: 502,
      model: 'demo/chat',
    });
    expect(access.keyId).toEqual(expect.any(String));
    expect(access.latencyMs).toEqual(expect.any(Number));
    // Nothing was answered, so nothing cost; the answered chat's line carries its usage's cost.
    expect(access.costRub).toBeNull();
    const cost = (answered.body as { usage: { cost_rub: number } }).usage.cost_rub;
    expect(cost).toBeGreaterThan(0);
    expect(accessLine('my-ok-id')).toMatchObject({ status: 200, costRub: cost });
  });

  it("traces a chat from the gateway over NATS to inference and its provider, in the client's trace", async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const answered = await chat(
      'Hello, traces',
      { max_tokens: 64 },
      {
        traceparent: `00-${traceId}-00f067aa0ba902b7-01`,
        'x-request-id': 'my-traced-id',
      },
    );
    expect(answered.status).toBe(200);
    const one = (spans: CollectedSpan[], service: string, name: string) => {
      const found = spans.filter((span) => span.service === service && span.name === name);
      expect(found).toHaveLength(1);
      return found[0];
    };
    await expectEventually(() => {
      const spans = collector.trace(traceId);
      const request = one(spans, 'api-gateway', 'POST /api/v1/chat/completions');
      expect(request).toMatchObject({ kind: 2, parentSpanId: '00f067aa0ba902b7' });
      expect(request.attributes).toMatchObject({
        'http.route': '/api/v1/chat/completions',
        'http.response.status_code': 200,
      });
      const sent = one(spans, 'api-gateway', 'send inference.v1.chat-completion');
      expect(sent).toMatchObject({ kind: 3, parentSpanId: request.spanId });
      expect(sent.attributes).toMatchObject({ 'messaging.system': 'nats' });
      const handled = one(spans, 'inference', 'process inference.v1.chat-completion');
      expect(handled).toMatchObject({ kind: 2, parentSpanId: sent.spanId });
      const reserved = one(spans, 'billing', 'process billing.v1.reserve');
      expect(spans.find((span) => span.spanId === reserved.parentSpanId)).toMatchObject({
        service: 'inference',
        name: 'send billing.v1.reserve',
        parentSpanId: handled.spanId,
      });
      const modelCall = spans.find((span) => span.service === 'inference' && span.name.startsWith('chat '));
      expect(modelCall).toMatchObject({ kind: 3, parentSpanId: handled.spanId });
      expect(modelCall!.attributes).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': expect.any(String),
        'gen_ai.request.model': expect.any(String),
        'gen_ai.request.max_tokens': 64,
        'gen_ai.response.finish_reasons': [expect.any(String)],
        'gen_ai.usage.input_tokens': expect.any(Number),
        'gen_ai.usage.output_tokens': expect.any(Number),
      });
    });
    // The trace id is in the request's log lines, so a log line leads to its trace.
    const access = stack.apps
      .get('api-gateway')!
      .output()
      .split('\n')
      .find((line) => line.includes('"requestId":"my-traced-id"') && line.includes('AccessLog'));
    expect(JSON.parse(access!)).toMatchObject({ traceId });
  });

  it('marks a failed model call and the request it failed in as errors', async () => {
    const traceId = '5bf92f3577b34da6a3ce929d0e0e4737';
    const failed = await chat(
      '[[fail:500]] traced failure',
      { provider: { only: ['Mock Alpha'] } },
      { traceparent: `00-${traceId}-00f067aa0ba902b8-01` },
    );
    expect(failed.status).toBe(502);
    await expectEventually(() => {
      const spans = collector.trace(traceId);
      const modelCall = spans.find((span) => span.service === 'inference' && span.name.startsWith('chat '));
      expect(modelCall).toMatchObject({ status: { code: 2 } });
      expect(modelCall!.attributes['error.type']).toEqual(expect.any(String));
      const request = spans.find((span) => span.name === 'POST /api/v1/chat/completions');
      expect(request!.attributes['http.response.status_code']).toBe(502);
    });
  });

  it('traces a transcription and a media generation as GenAI generate_content calls', async () => {
    const traceId = '0af7651916cd43dd8448eb211c80319c';
    const traceparent = `00-${traceId}-b7ad6b7169203331-01`;
    // Half a second of silence.
    const wav = Buffer.alloc(44 + 16_000);
    pcmWavHeader(16_000).copy(wav);
    const transcribed = await http('POST', `${stack.api}/v1/audio/transcriptions`, {
      token: org.apiKey,
      headers: { traceparent },
      body: { file: `data:audio/wav;base64,${wav.toString('base64')}`, model: 'demo/whisper' },
    });
    expect(transcribed.status).toBe(200);
    const image = await http('POST', `${stack.api}/v2/images/generations`, {
      token: org.apiKey,
      body: { model: 'demo/image', prompt: 'A traced lighthouse', size: '512x512' },
    });
    expect(image.status).toBe(200);
    await expectEventually(() => {
      // The transcription's call nests in the client's trace under inference's handling of it.
      const spans = collector.trace(traceId);
      const handled = spans.find((span) => span.service === 'inference' && span.name.startsWith('process '));
      const transcription = spans.find(
        (span) => span.service === 'inference' && span.name.startsWith('generate_content '),
      );
      expect(transcription).toMatchObject({ kind: 3, parentSpanId: handled!.spanId });
      expect(transcription!.attributes).toMatchObject({
        'gen_ai.operation.name': 'generate_content',
        'gen_ai.output.type': 'text',
        'gen_ai.provider.name': 'Mock Alpha',
      });
      // Media's provider calls run in its job runner, apart from the request that created the job.
      const imageCall = collector.spans.find(
        (span) =>
          span.service === 'media' &&
          span.name.startsWith('generate_content ') &&
          span.attributes['gen_ai.output.type'] === 'image',
      );
      expect(imageCall).toMatchObject({ kind: 3 });
      expect(imageCall!.attributes).toMatchObject({
        'gen_ai.operation.name': 'generate_content',
        'gen_ai.provider.name': 'Mock Alpha',
        'gen_ai.request.model': expect.any(String),
      });
    });
  });

  it('gives a request without a usable id a new one', async () => {
    expect((await http('GET', `${stack.api}/v1/models`)).headers.get('x-request-id')).toMatch(UUID);
    const refused = await http('GET', `${stack.api}/v1/models`, { headers: { 'x-request-id': 'not ok' } });
    expect(refused.headers.get('x-request-id')).toMatch(UUID);
  });

  it('counts a chat, a stream, an embedding and a failed upstream call at /metrics', async () => {
    const chatRoute = 'route="/api/v1/chat/completions"';
    const series = {
      chats: `gw_http_request_duration_seconds_count{method="POST",${chatRoute},status="200",service="api-gateway"}`,
      failedChats: `gw_http_request_duration_seconds_count{method="POST",${chatRoute},status="502",service="api-gateway"}`,
      embeddings: `gw_http_request_duration_seconds_count{method="POST",route="/api/v1/embeddings",status="200",service="api-gateway"}`,
      natsChats: `gw_nats_request_duration_seconds_count{subject="inference.v1.chat-completion",outcome="ok",service="api-gateway"}`,
      natsFailedChats: `gw_nats_request_duration_seconds_count{subject="inference.v1.chat-completion",outcome="upstream_error",service="api-gateway"}`,
      fallbacks: `gw_upstream_fallbacks_total{provider="Mock Broken",model="demo/chat-fallback",service="inference"}`,
      upstreamErrors: `gw_upstream_errors_total{provider="Mock Alpha",model="demo/chat",kind="status",service="inference"}`,
      firstOutput: `gw_upstream_first_output_seconds_count{provider="Mock Alpha",model="demo/chat",service="inference"}`,
    };
    const before = { gateway: await scrape(gatewayMetrics), inference: await scrape(inferenceMetrics) };

    expect((await chat('Hello, metrics')).status).toBe(200);
    const stream = await chat('Hello, stream', { stream: true }, { 'x-request-id': 'my-stream-id' });
    const events = sseData(stream.text);
    expect(events.at(-1)).toBe('[DONE]');
    // Mock Broken answers 502, so the router falls back to Mock Alpha.
    const fellBack = await http('POST', `${stack.api}/v1/chat/completions`, {
      token: org.apiKey,
      body: { model: 'demo/chat-fallback', messages: [{ role: 'user', content: 'Hello, fallback' }] },
    });
    expect(fellBack.status).toBe(200);
    const embedding = await http('POST', `${stack.api}/v1/embeddings`, {
      token: org.apiKey,
      body: { model: 'demo/embed-small', input: 'metrics' },
    });
    expect(embedding.status).toBe(200);
    const failed = await chat('[[fail:500]] upstream down', { provider: { only: ['Mock Alpha'] } });
    expect(failed.status).toBe(502);

    await expectEventually(async () => {
      const gateway = await scrape(gatewayMetrics);
      const inference = await scrape(inferenceMetrics);
      const moved = (text: string, old: string, name: string) => sample(text, name) - sample(old, name);
      expect(moved(gateway, before.gateway, series.chats)).toBe(3);
      expect(moved(gateway, before.gateway, series.failedChats)).toBe(1);
      expect(moved(gateway, before.gateway, series.embeddings)).toBe(1);
      // The plain chat and the fallback's (the stream is a stream subject); the failed one by its code.
      expect(moved(gateway, before.gateway, series.natsChats)).toBe(2);
      expect(moved(gateway, before.gateway, series.natsFailedChats)).toBe(1);
      expect(moved(inference, before.inference, series.fallbacks)).toBe(1);
      expect(moved(inference, before.inference, series.upstreamErrors)).toBe(1);
      expect(moved(inference, before.inference, series.firstOutput)).toBe(2);
      expect(gateway).toContain('nodejs_eventloop_lag_seconds');
    });
    // A stream's access-log line carries the cost of its last chunk's usage.
    const lastChunk = JSON.parse(events.at(-2)!) as { usage: { cost_rub: number } };
    expect(lastChunk.usage.cost_rub).toBeGreaterThan(0);
    expect(accessLine('my-stream-id')).toMatchObject({ status: 200, costRub: lastChunk.usage.cost_rub });
  });

  it('counts the tokens and roubles billing settles for a chat, by model', async () => {
    const series = {
      prompt: 'gw_billed_tokens_total{model="demo/chat",kind="prompt",service="billing"}',
      completion: 'gw_billed_tokens_total{model="demo/chat",kind="completion",service="billing"}',
      roubles: 'gw_billed_rub_total{model="demo/chat",service="billing"}',
    };
    const before = await scrape(billingMetrics);
    const answered = await chat('Hello, billing metrics');
    expect(answered.status).toBe(200);
    const { prompt_tokens, completion_tokens } = answered.body.usage;
    expect(completion_tokens).toBeGreaterThan(0);
    await expectEventually(async () => {
      const billing = await scrape(billingMetrics);
      const moved = (name: string) => sample(billing, name) - sample(before, name);
      expect(moved(series.prompt)).toBe(prompt_tokens);
      expect(moved(series.completion)).toBe(completion_tokens);
      expect(moved(series.roubles)).toBeGreaterThan(0);
    });
  });

  it('shows a held media generation as an open hold and a job by state until it ends', async () => {
    const pending = 'gw_media_generations{status="pending",service="media"}';
    const processing = 'gw_media_generations{status="processing",service="media"}';
    const openHolds = 'gw_open_holds{service="billing"}';
    const unsettledJobs = (media: string) => sample(media, pending) + sample(media, processing);
    const created = await http('POST', `${stack.api}/v1/media`, {
      token: org.apiKey,
      body: {
        model: 'demo/video',
        params: { prompt: 'Metrics at sea [[delay:4000]]', duration: 3 },
        async: true,
      },
    });
    expect(created.status).toBe(200);

    // The chats of the tests before may still be settling: the video's hold is the one left.
    await expectEventually(async () => {
      const billing = await scrape(billingMetrics);
      expect(sample(billing, openHolds)).toBe(1);
      expect(sample(billing, 'gw_open_holds_rub{service="billing"}')).toBeGreaterThan(0);
      expect(unsettledJobs(await scrape(mediaMetrics))).toBe(1);
    });

    expect((await finalGeneration(stack.api, org.apiKey, created.body.id)).status).toBe('completed');
    await expectEventually(async () => {
      const media = await scrape(mediaMetrics);
      expect(media).toContain(`${pending} 0`);
      expect(media).toContain(`${processing} 0`);
      expect(media).toContain('gw_outbox_unpublished_events{service="media"} 0');
      expect(sample(await scrape(billingMetrics), openHolds)).toBe(0);
      expect(
        sample(await scrape(billingMetrics), 'gw_billed_rub_total{model="demo/video",service="billing"}'),
      ).toBeGreaterThan(0);
    });
    expect(await scrape(inferenceMetrics)).toContain('gw_outbox_unpublished_events{service="inference"} 0');
  });

  it('leaves no secret the test used in any log line', async () => {
    // A file upload (a PNG, typed by content) and its download from the presigned URL of the S3 server.
    const png = Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), randomBytes(512)]);
    const form = new FormData();
    form.append('file', new Blob([png]), 'secret-grep.png');
    const uploaded = await fetch(`${stack.api}/v1/storage/files`, {
      method: 'POST',
      headers: { authorization: `Bearer ${org.apiKey}` },
      body: form,
    });
    expect(uploaded.status).toBe(201);
    const file = (await uploaded.json()) as { id: string; url: string };
    const listed = await http<{ data: { id: string; url: string }[] }>(
      'GET',
      `${stack.api}/v1/storage/files`,
      {
        token: org.apiKey,
      },
    );
    expect(listed.status).toBe(200);
    const again = listed.body.data.find((entry) => entry.id === file.id)!;
    const download = await fetch(again.url);
    expect(download.status).toBe(200);
    expect(Buffer.from(await download.arrayBuffer()).equals(png)).toBe(true);
    const signatures = [file.url, again.url].map((url) => new URL(url).searchParams.get('X-Amz-Signature'));
    for (const signature of signatures) expect(signature).toMatch(/^[0-9a-f]{64}$/);
    // The requests' own log lines are written by now.
    await expectEventually(() =>
      expect(
        stack.apps
          .get('api-gateway')!
          .output()
          .split('\n')
          .filter((line) => line.includes('AccessLog') && line.includes('/api/v1/storage/files')),
      ).toHaveLength(2),
    );

    const databasePassword = decodeURIComponent(new URL(stack.databaseUrl).password);
    const secrets = {
      apiKey: org.apiKey,
      password: org.password,
      adminToken: ADMIN_TOKEN,
      jwtSecret: JWT_SECRET,
      ...(databasePassword ? { databasePassword } : {}),
      s3SecretKey: stack.objectStore.env['S3_SECRET_ACCESS_KEY'],
      ...PROVIDER_KEYS,
      ...Object.fromEntries(
        signatures.map((signature, i) => [`presignedSignature${i}`, signature as string]),
      ),
    };
    expect(Object.keys(PROVIDER_KEYS)).toEqual(['MOCK_UPSTREAM_API_KEY']);
    const output = [...stack.apps.values()].map((app) => app.output()).join('\n');
    expect(output).toContain('/api/v1/storage/files');
    for (const [name, secret] of Object.entries(secrets)) {
      expect(secret).toBeTruthy();
      expect({ name, leaked: output.includes(secret) }).toEqual({ name, leaked: false });
    }
  });
});
