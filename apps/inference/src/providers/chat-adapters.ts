import { OnApplicationShutdown } from '@nestjs/common';
import type { ProviderWire } from '../catalogue/catalogue-config';
import { AnthropicWireAdapter } from './anthropic-wire.adapter';
import { OpenAiWireAdapter } from './openai-wire.adapter';
import type { ChatAdapter } from './upstream-chat';
import { UpstreamHttp } from './upstream-http';

/** The adapter for each wire format, sharing one connection pool. */
export class ChatAdapters implements OnApplicationShutdown {
  private readonly http: UpstreamHttp;
  private readonly adapters: Record<ProviderWire, ChatAdapter>;

  constructor(upstreamTimeoutMs: number) {
    this.http = new UpstreamHttp(upstreamTimeoutMs);
    this.adapters = { openai: new OpenAiWireAdapter(this.http), anthropic: new AnthropicWireAdapter(this.http) };
  }

  for(wire: ProviderWire): ChatAdapter {
    return this.adapters[wire];
  }

  async onApplicationShutdown(): Promise<void> {
    await this.http.close();
  }
}
