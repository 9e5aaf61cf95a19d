import {
  type ChatAdapter,
  type ChatAdapterCall,
  type UpstreamStreamEvent,
  type UpstreamUsage,
} from './upstream-chat';
import { UpstreamFailure } from '@gw/paid-generation';
import { type UpstreamHttp } from './upstream-http';

interface OpenAiUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  completion_tokens_details?: { reasoning_tokens?: number };
  prompt_tokens_details?: { cached_tokens?: number };
}

interface OpenAiChunk {
  choices?: Array<{
    delta?: { content?: string | null; tool_calls?: UpstreamStreamEvent['toolCalls'] };
    finish_reason?: string | null;
  }>;
  usage?: OpenAiUsage | null;
  error?: { message?: string };
}

/** The OpenAI chat-completions wire (OpenAI, OpenRouter, Mock Alpha); baseUrl includes `/v1`. */
export class OpenAiWireAdapter implements ChatAdapter {
  constructor(private readonly http: UpstreamHttp) {}

  async *stream(call: ChatAdapterCall): AsyncIterable<UpstreamStreamEvent> {
    const body = { ...call.request, stream: true, stream_options: { include_usage: true } };
    const response = await this.http.post(this.url(call), this.headers(call), body, call.signal);
    let finished = false;
    for await (const event of this.http.events(response, (event) => event.data === '[DONE]')) {
      if (event.data === '[DONE]') {
        finished = true;
        break;
      }
      const chunk = parse(event.data);
      if (chunk.error)
        throw new UpstreamFailure(
          'protocol',
          `Upstream stream failed: ${chunk.error.message ?? 'unknown error'}`,
        );
      const choice = chunk.choices?.[0];
      const usage = toUsage(chunk.usage);
      yield {
        ...(typeof choice?.delta?.content === 'string' && choice.delta.content !== ''
          ? { content: choice.delta.content }
          : {}),
        ...(choice?.delta?.tool_calls?.length ? { toolCalls: choice.delta.tool_calls } : {}),
        ...(choice?.finish_reason ? { finishReason: choice.finish_reason } : {}),
        ...(usage ? { usage } : {}),
      };
    }
    if (!finished) throw new UpstreamFailure('protocol', 'Upstream stream ended without [DONE]');
  }

  private url(call: ChatAdapterCall): string {
    return `${call.baseUrl}/chat/completions`;
  }

  private headers(call: ChatAdapterCall): Record<string, string> {
    return { authorization: `Bearer ${call.apiKey ?? ''}`.trim() };
  }
}

function parse(data: string): OpenAiChunk {
  try {
    return JSON.parse(data) as OpenAiChunk;
  } catch {
    throw new UpstreamFailure('protocol', 'Upstream sent a chunk that is not JSON');
  }
}

function toUsage(usage: OpenAiUsage | null | undefined): UpstreamUsage | null {
  if (!usage || typeof usage.prompt_tokens !== 'number' || typeof usage.completion_tokens !== 'number')
    return null;
  return {
    prompt_tokens: usage.prompt_tokens,
    completion_tokens: usage.completion_tokens,
    ...(usage.completion_tokens_details?.reasoning_tokens
      ? { reasoning_tokens: usage.completion_tokens_details.reasoning_tokens }
      : {}),
    ...(usage.prompt_tokens_details?.cached_tokens
      ? { cached_prompt_tokens: usage.prompt_tokens_details.cached_tokens }
      : {}),
  };
}
