import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import {
  type ChatCompletionChunk,
  type ChatCompletionRequest,
  type ErrorCode,
  InferenceContracts,
} from '@gw/contracts';
import { apiKeyPrincipal } from '@gw/testing';
import {
  CONTEXT_LENGTH_REFUSALS,
  FaultProvider,
  FIRST_WORD,
  INVALID_REQUEST_REFUSAL,
  PROVIDER_RETRY_AFTER_SECONDS,
  type Wire,
  WIRE_FAULTS,
  type WireFault,
} from './fault-provider';
import { DEMO_CATALOGUE, InferenceTestApp } from './inference-test-app';

/** What the client is told when the provider's default Retry-After is unknown. */
const DEFAULT_RETRY_AFTER = 5;

interface BeforeOutput {
  output: false;
  code: ErrorCode;
  status: number;
  retryAfterSeconds: number | null;
  /** Whether another provider is tried: not after a refusal another provider would repeat. */
  fallsBack: boolean;
  /** What the client's message says, beside the code. */
  message?: (wire: Wire) => RegExp;
}

type Outcome = BeforeOutput | { output: true; code: ErrorCode };

const beforeOutput = (
  code: ErrorCode,
  status: number,
  retryAfterSeconds: number | null = null,
): BeforeOutput => ({
  output: false,
  code,
  status,
  retryAfterSeconds,
  fallsBack: true,
});

/** The provider's refusal of the request: the client's 400 in the provider's words, named as the provider's. */
const refused = (code: ErrorCode, fallsBack: boolean, reason: (wire: Wire) => string): Outcome => ({
  ...beforeOutput(code, 400),
  fallsBack,
  message: (wire) => new RegExp(`^${PROVIDER_NAMES[wire]} refused the request: ${escape(reason(wire))}$`),
});

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const afterOutput = (code: ErrorCode): Outcome => ({ output: true, code });

/**
 * The wire-fault table: what the client is told for each fault, on either wire, streamed or not.
 * Before output a provider's class sets the status (its rate limit 429, its overload 503, each with
 * its Retry-After; any other failure 502; silence 504); after output the stream tells its usage and
 * ends with an error event, and only a stream's relayed part is charged.
 */
const EXPECTED: Record<WireFault, Outcome> = {
  'error-event-first-overloaded': beforeOutput('upstream_overloaded', 503, DEFAULT_RETRY_AFTER),
  'error-event-first-rate-limit': beforeOutput('upstream_rate_limited', 429, DEFAULT_RETRY_AFTER),
  'error-event-first-server': beforeOutput('upstream_error', 502),
  'error-event-mid': afterOutput('upstream_error'),
  'malformed-first': beforeOutput('upstream_error', 502),
  'malformed-mid': afterOutput('upstream_error'),
  truncated: afterOutput('upstream_error'),
  'http-429': beforeOutput('upstream_rate_limited', 429, PROVIDER_RETRY_AFTER_SECONDS),
  // A longer context elsewhere may take the prompt; a parameter refused here is refused everywhere.
  'http-400-context-length': refused(
    'context_length_exceeded',
    true,
    (wire) => CONTEXT_LENGTH_REFUSALS[wire],
  ),
  'http-400-invalid': refused('invalid_request', false, () => INVALID_REQUEST_REFUSAL),
  // The gateway's key refused: the operator's problem, told to the client without the provider's words.
  'http-401': {
    ...beforeOutput('upstream_error', 502),
    message: () => /^The upstream provider failed \(HTTP 401\)$/,
  },
  'http-500': beforeOutput('upstream_error', 502),
  'http-529': beforeOutput('upstream_overloaded', 503, DEFAULT_RETRY_AFTER),
  html: beforeOutput('upstream_error', 502),
  'no-headers': beforeOutput('upstream_timeout', 504),
  'stall-first': beforeOutput('upstream_timeout', 504),
  'stall-mid': afterOutput('upstream_timeout'),
};

const PROVIDER_NAMES: Record<Wire, string> = { openai: 'Fault OpenAI', anthropic: 'Fault Anthropic' };

/**
 * The demo catalogue plus, for each wire, `fault/<wire>` served by the fault provider alone, and
 * `fault/<wire>-then-alpha` where Mock Alpha follows it.
 */
function faultCatalogue(providerUrl: string): string {
  const catalogue = JSON.parse(readFileSync(DEMO_CATALOGUE, 'utf8'));
  const chat = catalogue.models.find((m: { id: string }) => m.id === 'demo/chat');
  for (const wire of ['openai', 'anthropic'] as const) {
    const faulty = structuredClone(chat.providers[0]);
    faulty.name = PROVIDER_NAMES[wire];
    faulty.routing = {
      wire,
      baseUrl: wire === 'openai' ? `${providerUrl}/openai/v1` : `${providerUrl}/anthropic`,
      model: 'faulty',
      apiKeyEnv: 'MOCK_UPSTREAM_API_KEY',
    };
    catalogue.models.push(
      { ...structuredClone(chat), id: `fault/${wire}`, providers: [faulty] },
      { ...structuredClone(chat), id: `fault/${wire}-then-alpha`, providers: [faulty, chat.providers[0]] },
    );
  }
  const file = join(mkdtempSync(join(tmpdir(), 'catalogue-')), 'catalogue.json');
  writeFileSync(file, JSON.stringify(catalogue));
  return file;
}

describe('faults on the provider wire', () => {
  let app: InferenceTestApp;
  let provider: FaultProvider;
  const principal = apiKeyPrincipal({ organizationId: randomUUID() });
  const chat = (
    model: string,
    fault: WireFault | null,
    generationId = `gen-${randomUUID()}`,
  ): ChatCompletionRequest =>
    ({
      principal,
      apiType: 'chat_completions',
      generationId,
      body: { model, messages: [{ role: 'user', content: fault ? `fault:${fault}` : 'hello' }] },
    }) as unknown as ChatCompletionRequest;

  /** A stream's chunks until it ends, and the error it ended with, if any. */
  const streamed = (request: ChatCompletionRequest) =>
    new Promise<{ chunks: ChatCompletionChunk[]; error: unknown }>((resolve) => {
      const chunks: ChatCompletionChunk[] = [];
      app.rpc.stream(InferenceContracts.chatCompletionStream, request).subscribe({
        next: (chunk) => chunks.push(chunk),
        error: (error: unknown) => resolve({ chunks, error }),
        complete: () => resolve({ chunks, error: null }),
      });
    });

  beforeAll(async () => {
    provider = await new FaultProvider().start();
    app = await InferenceTestApp.start({
      CATALOGUE_FILE: faultCatalogue(provider.url),
      UPSTREAM_TIMEOUT_MS: 1_000,
      FIRST_TOKEN_TIMEOUT_MS: 5_000,
    });
  });

  afterAll(async () => {
    await app.stop();
    await provider.stop();
  });

  const cases = (['openai', 'anthropic'] as const).flatMap((wire) =>
    WIRE_FAULTS.map((fault) => [wire, fault] as const),
  );

  describe.each(cases)('%s wire, %s', (wire, fault) => {
    const expected = EXPECTED[fault];

    it('answers a plain request as the table says, and charges nothing', async () => {
      const id = `gen-${randomUUID()}`;
      const error = await app.rpc
        .request(InferenceContracts.chatCompletion, chat(`fault/${wire}`, fault, id))
        .then(
          () => null,
          (err: unknown) => err,
        );
      expect(error).toMatchObject({ code: expected.code });
      if (!expected.output) {
        expect(error).toMatchObject({
          status: expected.status,
          retryAfterSeconds: expected.retryAfterSeconds,
        });
        if (expected.message) expect((error as { message: string }).message).toMatch(expected.message(wire));
      }
      // A plain answer broken off after output reached the client as an error only.
      expect(await app.eventOf(id)).toMatchObject({ status: 'failed', cost: '0' });
    });

    it('answers a stream as the table says', async () => {
      const { chunks, error } = await streamed(chat(`fault/${wire}`, fault));
      expect(error).toMatchObject({ code: expected.code });
      if (!expected.output) {
        expect(chunks).toEqual([]);
        expect(error).toMatchObject({
          status: expected.status,
          retryAfterSeconds: expected.retryAfterSeconds,
        });
        return;
      }
      // What was relayed, then the usage and cost of it as the last chunk before the error.
      expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe(FIRST_WORD);
      const told = chunks.at(-1);
      expect(told?.choices).toEqual([]);
      expect(told?.usage?.completion_tokens).toBe(1);
      const event = await app.eventOf(chunks[0].id);
      expect(event).toMatchObject({ status: 'failed', error: { code: expected.code } });
      expect(event.cost).toBe(String(told?.usage?.cost_rub));
      expect(Number(event.cost)).toBeGreaterThan(0);
    });

    if (!expected.output && !expected.fallsBack) {
      it('answers the refusal without trying the next provider', async () => {
        const error = await app.rpc
          .request(InferenceContracts.chatCompletion, chat(`fault/${wire}-then-alpha`, fault))
          .then(
            () => null,
            (err: unknown) => err,
          );
        expect(error).toMatchObject({ code: expected.code, status: expected.status });
      });
    }

    if (!expected.output && expected.fallsBack) {
      it('moves on to the next provider, as before any output', async () => {
        const answer = await app.rpc.request(
          InferenceContracts.chatCompletion,
          chat(`fault/${wire}-then-alpha`, fault),
        );
        expect(answer).toMatchObject({ provider: 'Mock Alpha', choices: [{ finish_reason: 'stop' }] });
        const event = await app.eventOf(answer.id);
        expect(event).toMatchObject({ status: 'completed', provider: 'Mock Alpha', attemptsCount: 2 });
      });
    }
  });

  it('keeps serving after every fault', async () => {
    for (const wire of ['openai', 'anthropic'] as const) {
      const answer = await app.rpc.request(InferenceContracts.chatCompletion, chat(`fault/${wire}`, null));
      expect(answer.choices[0].message.content).toBe(FIRST_WORD);
    }
  });
});
