import type { ProviderWire } from '@gw/catalogue';
import { AnthropicWireAdapter } from './anthropic-wire.adapter';
import { OpenAiWireAdapter } from './openai-wire.adapter';
import type { ChatAdapter } from './upstream-chat';
import { type UpstreamHttp } from './upstream-http';

/** The adapter for each wire format, on the shared connection pool. */
export class ChatAdapters {
  private readonly adapters: Record<ProviderWire, ChatAdapter>;

  constructor(http: UpstreamHttp) {
    this.adapters = { openai: new OpenAiWireAdapter(http), anthropic: new AnthropicWireAdapter(http) };
  }

  for(wire: ProviderWire): ChatAdapter {
    return this.adapters[wire];
  }
}
