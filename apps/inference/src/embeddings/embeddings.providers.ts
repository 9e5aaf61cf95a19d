import type { Provider } from '@nestjs/common';
import { EmbeddingsService } from './embeddings.service';
import { OpenAiEmbeddingsAdapter } from './openai-embeddings.adapter';

export function embeddingsProviders(upstreamTimeoutMs: number): Provider[] {
  return [{ provide: OpenAiEmbeddingsAdapter, useFactory: () => new OpenAiEmbeddingsAdapter(upstreamTimeoutMs) }, EmbeddingsService];
}
