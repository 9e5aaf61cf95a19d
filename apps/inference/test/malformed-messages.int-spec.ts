import {
  type ChatCompletionRequest,
  EmbeddingsContracts,
  InferenceContracts,
  type Principal,
  TranscriptionContracts,
} from '@gw/contracts';
import { malformedMessages } from '@gw/testing';
import { randomUUID } from 'node:crypto';
import { InferenceTestApp } from './inference-test-app';

describe('inference refuses malformed NATS messages', () => {
  let app: InferenceTestApp;
  const principal: Principal = {
    kind: 'api_key',
    organizationId: randomUUID(),
    apiKeyId: randomUUID(),
    apiKeyName: 'test key',
    apiKeyShort: 'abc123',
    userId: null,
  };
  const chat = {
    principal,
    body: { model: 'demo/chat', messages: [{ role: 'user', content: 'hi' }] },
    apiType: 'chat_completions',
  };

  beforeAll(async () => {
    app = await InferenceTestApp.start({});
  });

  afterAll(async () => {
    await app.stop();
  });

  it.each(malformedMessages(chat, 'principal'))(
    'answers a chat message $label with invalid_request and reserves nothing',
    async ({ payload, param }) => {
      const before = app.reserveRequests.length;
      await expect(
        app.rpc.request(InferenceContracts.chatCompletion, payload as ChatCompletionRequest),
      ).rejects.toMatchObject({ code: 'invalid_request', status: 400, param });
      expect(app.reserveRequests.length).toBe(before);
    },
  );

  it('checks the generation id of every paid request the same way', async () => {
    const generationId = 'not-a-generation-id';
    const refusal = { code: 'invalid_request', param: 'generationId' };
    await expect(
      app.rpc.request(InferenceContracts.chatCompletion, { ...chat, generationId }),
    ).rejects.toMatchObject(refusal);
    await expect(
      app.rpc.request(EmbeddingsContracts.create, {
        principal,
        body: { model: 'demo/embed-large', input: 'x' },
        generationId,
      }),
    ).rejects.toMatchObject(refusal);
    await expect(
      app.rpc.request(TranscriptionContracts.transcribe, {
        principal,
        audio: {
          key: 'transient/00000000-0000-4000-8000-000000000000',
          size: 3,
          filename: 'a.wav',
          format: 'wav',
        },
        params: { model: 'demo/transcribe' },
        generationId,
      }),
    ).rejects.toMatchObject(refusal);
  });

  it('still answers a well-formed chat message', async () => {
    await expect(app.rpc.request(InferenceContracts.chatCompletion, chat)).resolves.toMatchObject({
      object: 'chat.completion',
    });
  });
});
