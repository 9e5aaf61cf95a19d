import {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionUsage,
  MessagesContentBlock,
  messagesErrorType,
  MessagesResponse,
  MessagesStopReason,
  MessagesUsage,
  NamedServerSentEvent,
} from '@gw/contracts';
import type {
  ChatCompletionRequestDto,
  ChatContentPart,
  ChatMessageDto,
  MessagesImageSource,
  MessagesInputBlock,
  MessagesMessageDto,
  MessagesRequestDto,
  MessagesToolResultBlock,
} from '@gw/dto';
import type { StreamInput, StreamStep, StreamTranslator } from './event-stream';

// ---- request ----------------------------------------------------------------------------------

function imageUrl(source: MessagesImageSource): string {
  return source.type === 'base64' ? `data:${source.media_type};base64,${source.data}` : source.url;
}

function toolResultText(block: MessagesToolResultBlock): string {
  const content = block.content ?? '';
  const text = typeof content === 'string' ? content : content.map((part) => (part.type === 'text' ? part.text : '')).join('');
  return block.is_error ? `Error: ${text}` : text;
}

function userMessages(content: string | MessagesInputBlock[]): ChatMessageDto[] {
  if (typeof content === 'string') return [{ role: 'user', content }];
  // Tool results answer the assistant's calls, so they come first, each as a tool message.
  const results: ChatMessageDto[] = content
    .filter((block): block is MessagesToolResultBlock => block.type === 'tool_result')
    .map((block) => ({ role: 'tool', tool_call_id: block.tool_use_id, content: toolResultText(block) }));
  const parts: ChatContentPart[] = [];
  for (const block of content) {
    if (block.type === 'text') parts.push({ type: 'text', text: block.text });
    if (block.type === 'image') parts.push({ type: 'image_url', image_url: { url: imageUrl(block.source) } });
  }
  return parts.length > 0 ? [...results, { role: 'user', content: parts }] : results;
}

function assistantMessage(content: string | MessagesInputBlock[]): ChatMessageDto {
  if (typeof content === 'string') return { role: 'assistant', content };
  const text = content.map((block) => (block.type === 'text' ? block.text : '')).join('');
  const calls = content.flatMap((block) =>
    block.type === 'tool_use' ? [{ id: block.id, type: 'function' as const, function: { name: block.name, arguments: JSON.stringify(block.input) } }] : [],
  );
  return { role: 'assistant', content: text === '' && calls.length > 0 ? null : text, ...(calls.length > 0 ? { tool_calls: calls } : {}) };
}

export function messagesConversation(body: Pick<MessagesRequestDto, 'system' | 'messages'>): ChatMessageDto[] {
  const system = typeof body.system === 'string' ? body.system : (body.system ?? []).map((block) => block.text).join('\n\n');
  const messages: ChatMessageDto[] = system ? [{ role: 'system', content: system }] : [];
  for (const message of body.messages as MessagesMessageDto[]) {
    if (message.role === 'user') messages.push(...userMessages(message.content));
    else messages.push(assistantMessage(message.content));
  }
  return messages;
}

function toolChoice(choice: MessagesRequestDto['tool_choice']): ChatCompletionRequestDto['tool_choice'] {
  if (!choice) return undefined;
  switch (choice.type) {
    case 'any':
      return 'required';
    case 'tool':
      return { type: 'function', function: { name: choice.name ?? '' } };
    default:
      return choice.type;
  }
}

/**
 * The chat body that runs a Messages request through the chat pipeline. `top_k` and
 * `stop_sequences` have no counterpart in it and are not passed on.
 */
export function messagesToChatBody(body: MessagesRequestDto, stream: boolean): ChatCompletionRequestDto {
  const choice = toolChoice(body.tool_choice);
  const thinking = body.thinking;
  return {
    model: body.model,
    messages: messagesConversation(body),
    max_tokens: body.max_tokens,
    stream,
    ...(body.temperature !== undefined ? { temperature: body.temperature } : {}),
    ...(body.top_p !== undefined ? { top_p: body.top_p } : {}),
    ...(body.tools?.length
      ? {
          tools: body.tools.map((tool) => ({
            type: 'function' as const,
            function: { name: tool.name, ...(tool.description !== undefined ? { description: tool.description } : {}), parameters: tool.input_schema },
          })),
        }
      : {}),
    ...(choice !== undefined ? { tool_choice: choice } : {}),
    ...(thinking?.type === 'enabled' ? { reasoning: { enabled: true, max_tokens: thinking.budget_tokens } } : {}),
    ...(thinking?.type === 'disabled' ? { reasoning: { enabled: false } } : {}),
    ...(body.metadata?.user_id !== undefined ? { user: body.metadata.user_id } : {}),
    ...(body.provider ? { provider: body.provider } : {}),
  };
}

// ---- response ---------------------------------------------------------------------------------

const STOP_REASONS: Record<string, MessagesStopReason> = {
  stop: 'end_turn',
  length: 'max_tokens',
  tool_calls: 'tool_use',
  content_filter: 'refusal',
};

export function stopReason(finishReason: string): MessagesStopReason {
  return STOP_REASONS[finishReason] ?? 'end_turn';
}

export function messagesUsage(usage: ChatCompletionUsage): MessagesUsage {
  return {
    input_tokens: usage.prompt_tokens,
    output_tokens: usage.completion_tokens,
    cache_creation_input_tokens: null,
    cache_read_input_tokens: null,
    cost_rub: usage.cost_rub,
    cost: usage.cost,
  };
}

/** Tool arguments are JSON text in the chat shape and an object here; text that does not parse is kept under `_raw`. */
export function toolInput(args: string): Record<string, unknown> {
  if (args.trim() === '') return {};
  try {
    const parsed: unknown = JSON.parse(args);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : { _raw: args };
  } catch {
    return { _raw: args };
  }
}

export function messageFromCompletion(completion: ChatCompletion): MessagesResponse {
  const choice = completion.choices[0];
  const content: MessagesContentBlock[] = [];
  if (choice?.message.content) content.push({ type: 'text', text: choice.message.content });
  for (const call of choice?.message.tool_calls ?? []) {
    content.push({ type: 'tool_use', id: call.id, name: call.function.name, input: toolInput(call.function.arguments) });
  }
  return {
    id: completion.id,
    type: 'message',
    role: 'assistant',
    model: completion.model,
    content,
    stop_reason: stopReason(choice?.finish_reason ?? 'stop'),
    stop_sequence: null,
    usage: messagesUsage(completion.usage),
    provider: completion.provider,
  };
}

// ---- stream -----------------------------------------------------------------------------------

export interface MessagesStreamState {
  started: boolean;
  finished: boolean;
  /** Index of the next content block. */
  nextBlock: number;
  open: { kind: 'text' | 'tool_use'; index: number } | null;
  /** Content block index of each streamed tool call, by its chat tool-call index. */
  toolBlocks: Record<number, number>;
}

const event = (data: NamedServerSentEvent['data']): NamedServerSentEvent => ({ event: data.type, data });

function closeOpen(state: MessagesStreamState, events: NamedServerSentEvent[]): MessagesStreamState {
  if (!state.open) return state;
  events.push(event({ type: 'content_block_stop', index: state.open.index }));
  return { ...state, open: null };
}

function openBlock(state: MessagesStreamState, events: NamedServerSentEvent[], block: Record<string, unknown>, kind: 'text' | 'tool_use'): MessagesStreamState {
  const next = closeOpen(state, events);
  events.push(event({ type: 'content_block_start', index: next.nextBlock, content_block: block }));
  return { ...next, open: { kind, index: next.nextBlock }, nextBlock: next.nextBlock + 1 };
}

function onChunk(state: MessagesStreamState, events: NamedServerSentEvent[], chunk: ChatCompletionChunk): MessagesStreamState {
  let next = state;
  if (!next.started) {
    const message = {
      id: chunk.id,
      type: 'message',
      role: 'assistant',
      model: chunk.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 0, output_tokens: 0 },
      provider: chunk.provider,
    };
    events.push(event({ type: 'message_start', message }));
    next = { ...next, started: true };
  }
  const choice = chunk.choices[0];
  if (!choice) return next;
  const text = choice.delta.content;
  if (text) {
    if (next.open?.kind !== 'text') next = openBlock(next, events, { type: 'text', text: '' }, 'text');
    events.push(event({ type: 'content_block_delta', index: next.open?.index, delta: { type: 'text_delta', text } }));
  }
  for (const call of choice.delta.tool_calls ?? []) {
    if (next.toolBlocks[call.index] === undefined) {
      const block = { type: 'tool_use', id: call.id ?? `toolu_${call.index}`, name: call.function?.name ?? '', input: {} };
      next = openBlock(next, events, block, 'tool_use');
      next = { ...next, toolBlocks: { ...next.toolBlocks, [call.index]: next.nextBlock - 1 } };
    }
    const partial = call.function?.arguments;
    if (partial) {
      events.push(event({ type: 'content_block_delta', index: next.toolBlocks[call.index], delta: { type: 'input_json_delta', partial_json: partial } }));
    }
  }
  if (!choice.finish_reason) return next;
  next = closeOpen(next, events);
  const usage = chunk.usage ? messagesUsage(chunk.usage) : { output_tokens: 0 };
  events.push(event({ type: 'message_delta', delta: { stop_reason: stopReason(choice.finish_reason), stop_sequence: null }, usage }));
  events.push(event({ type: 'message_stop' }));
  return { ...next, finished: true };
}

export function messagesStreamTranslator(): StreamTranslator<MessagesStreamState> {
  return {
    initial: { started: false, finished: false, nextBlock: 0, open: null, toolBlocks: {} },
    started: (state) => state.started,
    step: (state: MessagesStreamState, input: StreamInput): StreamStep<MessagesStreamState> => {
      if (state.finished) return { state, events: [] };
      const events: NamedServerSentEvent[] = [];
      if (input.kind === 'chunk') return { state: onChunk(state, events, input.chunk), events };
      events.push(event({ type: 'error', error: { type: messagesErrorType(input.error.code), message: input.error.message } }));
      return { state: { ...state, finished: true }, events };
    },
  };
}
