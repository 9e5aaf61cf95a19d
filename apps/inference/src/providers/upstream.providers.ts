import type { Provider } from '@nestjs/common';
import { OpenAiEmbeddingsAdapter } from '../embeddings/openai-embeddings.adapter';
import { TranscriptionUpstream } from '../transcriptions/transcription-upstream';
import { ChatAdapters } from './chat-adapters';
import { UpstreamHttp } from './upstream-http';

/**
 * The upstream clients of every API on one connection pool. UpstreamHttp is the one provider that
 * owns (and closes) the pool; the clients only use it.
 */
export function upstreamProviders(upstreamTimeoutMs: number, maxConnections: number): Provider[] {
  return [
    { provide: UpstreamHttp, useFactory: () => new UpstreamHttp(upstreamTimeoutMs, maxConnections) },
    {
      provide: ChatAdapters,
      useFactory: (http: UpstreamHttp) => new ChatAdapters(http),
      inject: [UpstreamHttp],
    },
    {
      provide: OpenAiEmbeddingsAdapter,
      useFactory: (http: UpstreamHttp) => new OpenAiEmbeddingsAdapter(http),
      inject: [UpstreamHttp],
    },
    {
      provide: TranscriptionUpstream,
      useFactory: (http: UpstreamHttp) => new TranscriptionUpstream(http),
      inject: [UpstreamHttp],
    },
  ];
}
