import Anthropic from '@anthropic-ai/sdk';
import Decimal from 'decimal.js';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { expectEventually } from '@gw/testing';
import { WORKSPACE_ROOT } from './support/app-process';
import { DistributedStack } from './support/distributed-stack';
import { type EmbeddedGateway, startEmbeddedGateway } from './support/embedded-gateway';
import { http, seedOrganization } from './support/gateway-http';

const ADMIN_TOKEN = 'e2e-admin-token-0123456789';

/** mock-upstream's words for a prompt too long (apps/mock-upstream/src/chat/mock-answer.ts REFUSALS). */
const CONTEXT_LENGTH = {
  'Mock Alpha': /^Mock Alpha refused the request: This model's maximum context length is 128000 tokens\./,
  'Mock Beta': /^Mock Beta refused the request: prompt is too long: 210000 tokens > 200000 maximum$/,
} as const;

/** A key mock-upstream refuses (it refuses every key that begins with `revoked`). */
const REVOKED_KEY = 'revoked-provider-key';

/**
 * The demo catalogue plus `refusal/revoked-then-beta`: demo/chat whose first provider is sent a
 * key the provider refuses (`REVOKED_PROVIDER_KEY`), then Mock Beta.
 */
function refusalCatalogue(): string {
  const catalogue = JSON.parse(readFileSync(join(WORKSPACE_ROOT, 'config/catalogue.demo.json'), 'utf8'));
  const chat = catalogue.models.find((m: { id: string }) => m.id === 'demo/chat');
  const revoked = structuredClone(chat);
  revoked.id = 'refusal/revoked-then-beta';
  revoked.providers[0].routing.apiKeyEnv = 'REVOKED_PROVIDER_KEY';
  catalogue.models.push(revoked);
  const file = join(mkdtempSync(join(tmpdir(), 'catalogue-')), 'catalogue.json');
  writeFileSync(file, JSON.stringify(catalogue));
  return file;
}

interface Target {
  api: string;
  adminToken: string;
}

/**
 * A provider's refusal of the request, as issue 28 reproduced it: the client's 400 with the
 * provider's reason and code through chat, Responses and Messages, raised by the official SDKs as
 * their BadRequestError, charged nothing; the gateway's own provider key refused is a 502 without
 * the provider's words, and the next provider answers where there is one.
 */
function providerRefusals(target: () => Target): void {
  const clients = async () => {
    const org = await seedOrganization(target().api, target().adminToken, '10.00');
    return {
      org,
      openai: new OpenAI({ apiKey: org.apiKey, baseURL: `${target().api}/v1`, maxRetries: 0 }),
      anthropic: new Anthropic({ apiKey: org.apiKey, baseURL: target().api, maxRetries: 0 }),
    };
  };
  const tooLong = 'a prompt longer than the model takes [[refuse:context_length]]';

  describe.each(['Mock Alpha', 'Mock Beta'] as const)('a context-length refusal by %s', (provider) => {
    const model = `demo/chat@provider=${provider}`;

    it('is a 400 context_length_exceeded with its words through chat, plain and streamed, at no cost', async () => {
      const { org, openai } = await clients();
      for (const stream of [false, true]) {
        const error = await openai.chat.completions
          .create({ model, stream, messages: [{ role: 'user', content: tooLong }] })
          .catch((err: unknown) => err);
        expect(error).toBeInstanceOf(OpenAI.BadRequestError);
        expect(error).toMatchObject({ code: 'context_length_exceeded', type: 'invalid_request_error' });
        expect((error as { error: { message: string } }).error.message).toMatch(CONTEXT_LENGTH[provider]);
      }
      await expectEventually(async () => {
        const list = await http('GET', `${target().api}/v1/history/generations`, { token: org.apiKey });
        expect(list.body.items).toHaveLength(2);
        for (const item of list.body.items)
          expect(item).toMatchObject({ status: 'failed', cost: '0.00000000' });
      });
      const balance = await http('GET', `${target().api}/v1/balance`, { token: org.apiKey });
      expect(new Decimal(balance.body.amount)).toEqual(new Decimal('10'));
    });

    it('is a BadRequestError through the Responses API', async () => {
      const { openai } = await clients();
      const error = await openai.responses.create({ model, input: tooLong }).catch((err: unknown) => err);
      expect(error).toBeInstanceOf(OpenAI.BadRequestError);
      expect((error as { error: { message: string } }).error.message).toMatch(CONTEXT_LENGTH[provider]);
    });

    it("is Anthropic's invalid_request_error through the Messages API, which its SDK raises as BadRequestError", async () => {
      const { org, anthropic } = await clients();
      const error = await anthropic.messages
        .create({ model, max_tokens: 64, messages: [{ role: 'user', content: tooLong }] })
        .catch((err: unknown) => err);
      expect(error).toBeInstanceOf(Anthropic.BadRequestError);
      const raw = await http('POST', `${target().api}/v1/messages`, {
        headers: { 'x-api-key': org.apiKey },
        body: { model, max_tokens: 64, messages: [{ role: 'user', content: tooLong }] },
      });
      expect(raw.status).toBe(400);
      expect(raw.body).toMatchObject({
        type: 'error',
        error: { type: 'invalid_request_error', code: 'context_length_exceeded' },
      });
      expect(raw.body.error.message).toMatch(CONTEXT_LENGTH[provider]);
      expect((error as Error).message).toContain(raw.body.error.message);
    });
  });

  it('answers a parameter the provider refuses 400 invalid_request, without trying the next provider', async () => {
    const { openai } = await clients();
    const error = await openai.chat.completions
      .create({ model: 'demo/chat', messages: [{ role: 'user', content: 'hi [[refuse:invalid]]' }] })
      .catch((err: unknown) => err);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error).toMatchObject({ code: 'invalid_request', param: 'temperature' });
    expect((error as { error: { message: string } }).error.message).toMatch(
      /^Mock Alpha refused the request: /,
    );
  });

  it("answers the gateway's refused provider key 502 without the provider's words, and fails over", async () => {
    const { openai } = await clients();
    const answered = await openai.chat.completions.create({
      model: 'refusal/revoked-then-beta',
      messages: [{ role: 'user', content: 'key refused first' }],
    });
    expect((answered as unknown as { provider: string }).provider).toBe('Mock Beta');
    const error = await openai.chat.completions
      .create({
        model: 'refusal/revoked-then-beta@provider=Mock Alpha',
        messages: [{ role: 'user', content: 'hi' }],
      })
      .catch((err: unknown) => err);
    expect(error).toBeInstanceOf(OpenAI.InternalServerError);
    expect(error).toMatchObject({ status: 502, code: 'upstream_error' });
    expect(JSON.stringify((error as { error: unknown }).error)).not.toMatch(/key|Missing/i);
  });
}

describe('provider refusals (embedded app)', () => {
  let gateway: EmbeddedGateway;
  beforeAll(async () => {
    gateway = await startEmbeddedGateway('refusals', {
      CATALOGUE_FILE: refusalCatalogue(),
      REVOKED_PROVIDER_KEY: REVOKED_KEY,
    });
  }, 120_000);
  afterAll(() => gateway?.stop());

  providerRefusals(() => ({ api: gateway.api, adminToken: gateway.adminToken }));
});

describe('provider refusals (distributed mode)', () => {
  const stack = new DistributedStack({
    database: 'e2e_refusals',
    adminToken: ADMIN_TOKEN,
    jwtSecret: 'e2e-jwt-secret-0123456789',
    env: { inference: { CATALOGUE_FILE: refusalCatalogue(), REVOKED_PROVIDER_KEY: REVOKED_KEY } },
  });
  beforeAll(() => stack.start(), 120_000);
  afterAll(() => stack.stop());

  providerRefusals(() => ({ api: stack.api, adminToken: ADMIN_TOKEN }));
});
