import { Logger } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { OpenAiEmbeddingsAdapter } from '../embeddings/openai-embeddings.adapter';
import { TranscriptionUpstream } from '../transcriptions/transcription-upstream';
import { ChatAdapters } from './chat-adapters';
import { upstreamProviders } from './upstream.providers';

const firstEvent = (events: AsyncIterable<unknown>) => events[Symbol.asyncIterator]().next();

/** Nothing listens here; a call on an open pool would fail to connect, not find the pool closed. */
const NOWHERE = 'http://127.0.0.1:9';

describe('upstreamProviders', () => {
  let moduleRef: TestingModule;

  beforeEach(async () => {
    moduleRef = await Test.createTestingModule({ providers: upstreamProviders(1_000, 16) }).compile();
    await moduleRef.init();
  });

  it('shuts down twice without an error: a signal, then the embedded mode closing the service, both run the hooks', async () => {
    // Nest logs a failing shutdown hook rather than throwing it.
    const logged = jest.spyOn(Logger, 'error').mockImplementation(() => undefined);
    try {
      await moduleRef.close();
      await moduleRef.close();
      expect(logged).not.toHaveBeenCalled();
    } finally {
      logged.mockRestore();
    }
  });

  it('closes the one pool that chat, embeddings and transcription all use', async () => {
    await moduleRef.close();
    const signal = new AbortController().signal;
    const calls = [
      firstEvent(
        moduleRef
          .get(ChatAdapters)
          .for('openai')
          .stream({
            baseUrl: NOWHERE,
            apiKey: null,
            request: { model: 'm', messages: [], max_tokens: 1 },
            signal,
          }),
      ),
      firstEvent(
        moduleRef
          .get(ChatAdapters)
          .for('anthropic')
          .stream({
            baseUrl: NOWHERE,
            apiKey: null,
            request: { model: 'm', messages: [], max_tokens: 1 },
            signal,
          }),
      ),
      moduleRef
        .get(OpenAiEmbeddingsAdapter)
        .embed({ baseUrl: NOWHERE, apiKey: null, request: { model: 'm', input: ['x'] }, signal }),
      moduleRef.get(TranscriptionUpstream).transcribe({
        baseUrl: NOWHERE,
        apiKey: null,
        upstreamModel: 'm',
        audio: Buffer.from('x'),
        filename: 'a.wav',
        mimeType: 'audio/wav',
        params: {},
        upstreamFormat: 'json',
      }),
    ];
    for (const call of calls) await expect(call).rejects.toThrow(/client is (closed|destroyed)/);
  });
});
