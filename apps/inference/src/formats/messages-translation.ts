import {
  ANTHROPIC_REASONING_FORMAT,
  type ChatCompletion,
  type ChatCompletionChunk,
  type ChatCompletionUsage,
  DomainError,
  type MessagesContentBlock,
  messagesErrorType,
  type MessagesResponse,
  type MessagesStopReason,
  type MessagesUsage,
  type NamedServerSentEvent,
  type ReasoningDetail,
  reasoningText,
} from '@gw/contracts';
import type {
  ChatCompletionRequestDto,
  ChatContentPart,
  ChatMessageDto,
  MessagesRequestDto,
  ToolDto,
} from '@gw/dto';
import type { StreamInput, StreamStep, StreamTranslator } from './event-stream';
import { contentAt, listAt, recordAt, stringAt, typedAt } from './input-shape';

// ---- request ----------------------------------------------------------------------------------
// Every access below goes through a shape check (input-shape.ts), so a body the validation let
// through with an odd shape is a 400 naming the field, never a TypeError.

type Block = Record<string, unknown> & { type: string };

function imageUrl(block: Block, param: string): string {
  const source = typedAt(block['source'], `${param}.source`);
  if (source.type === 'base64')
    return `data:${stringAt(source['media_type'], `${param}.source.media_type`)};base64,${stringAt(source['data'], `${param}.source.data`)}`;
  return stringAt(source['url'], `${param}.source.url`);
}

function toolResultText(block: Block, param: string): string {
  const content = contentAt(block['content'] ?? '', `${param}.content`);
  const text =
    typeof content === 'string'
      ? content
      : content
          .map((part, i) =>
            part.type === 'text' ? stringAt(part['text'], `${param}.content[${i}].text`) : '',
          )
          .join('');
  return block['is_error'] === true ? `Error: ${text}` : text;
}

function userMessages(content: string | Block[], param: string): ChatMessageDto[] {
  if (typeof content === 'string') return [{ role: 'user', content }];
  // Tool results answer the assistant's calls, so they come first, each as a tool message.
  const results: ChatMessageDto[] = [];
  const parts: ChatContentPart[] = [];
  content.forEach((block, i) => {
    const at = `${param}[${i}]`;
    if (block.type === 'tool_result')
      results.push({
        role: 'tool',
        tool_call_id: stringAt(block['tool_use_id'], `${at}.tool_use_id`),
        content: toolResultText(block, at),
      });
    if (block.type === 'text') parts.push({ type: 'text', text: stringAt(block['text'], `${at}.text`) });
    if (block.type === 'image') parts.push({ type: 'image_url', image_url: { url: imageUrl(block, at) } });
  });
  return parts.length > 0 ? [...results, { role: 'user', content: parts }] : results;
}

/** An assistant turn's thinking as the chat's reasoning items, signature and data unchanged, so the provider can take them back. */
function reasoningDetails(content: Block[], param: string): ReasoningDetail[] {
  return content.flatMap((block, i): ReasoningDetail[] => {
    const at = `${param}[${i}]`;
    const origin = { format: ANTHROPIC_REASONING_FORMAT, index: i };
    if (block.type === 'thinking')
      return [
        {
          type: 'reasoning.text',
          text: stringAt(block['thinking'], `${at}.thinking`),
          signature: stringAt(block['signature'], `${at}.signature`),
          ...origin,
        },
      ];
    if (block.type === 'redacted_thinking')
      return [{ type: 'reasoning.encrypted', data: stringAt(block['data'], `${at}.data`), ...origin }];
    return [];
  });
}

function assistantMessage(content: string | Block[], param: string): ChatMessageDto {
  if (typeof content === 'string') return { role: 'assistant', content };
  const details = reasoningDetails(content, param);
  const text = content
    .map((block, i) => (block.type === 'text' ? stringAt(block['text'], `${param}[${i}].text`) : ''))
    .join('');
  const calls = content.flatMap((block, i) => {
    if (block.type !== 'tool_use') return [];
    const at = `${param}[${i}]`;
    const input = recordAt(block['input'], `${at}.input`);
    return [
      {
        id: stringAt(block['id'], `${at}.id`),
        type: 'function' as const,
        function: { name: stringAt(block['name'], `${at}.name`), arguments: JSON.stringify(input) },
      },
    ];
  });
  return {
    role: 'assistant',
    content: text === '' && calls.length > 0 ? null : text,
    ...(calls.length > 0 ? { tool_calls: calls } : {}),
    ...(details.length > 0 ? { reasoning: reasoningText(details), reasoning_details: details } : {}),
  };
}

function systemText(system: unknown): string {
  if (system === undefined || system === null || typeof system === 'string') return system ?? '';
  return listAt(system, 'system')
    .map((block, i) => stringAt(recordAt(block, `system[${i}]`)['text'], `system[${i}].text`))
    .join('\n\n');
}

export function messagesConversation(
  body: Pick<MessagesRequestDto, 'system' | 'messages'>,
): ChatMessageDto[] {
  const system = systemText(body.system);
  const messages: ChatMessageDto[] = system ? [{ role: 'system', content: system }] : [];
  listAt(body.messages, 'messages').forEach((entry, i) => {
    const message = recordAt(entry, `messages[${i}]`);
    const content = contentAt(message['content'], `messages[${i}].content`);
    if (message['role'] === 'user') messages.push(...userMessages(content, `messages[${i}].content`));
    else if (message['role'] === 'assistant')
      messages.push(assistantMessage(content, `messages[${i}].content`));
    else
      throw new DomainError(
        'invalid_request',
        `messages[${i}].role must be user or assistant`,
        `messages[${i}].role`,
      );
  });
  return messages;
}

function toolChoice(choice: MessagesRequestDto['tool_choice']): ChatCompletionRequestDto['tool_choice'] {
  if (choice === undefined || choice === null) return undefined;
  const { type, name } = typedAt(choice, 'tool_choice');
  switch (type) {
    case 'any':
      return 'required';
    case 'tool':
      return { type: 'function', function: { name: stringAt(name, 'tool_choice.name') } };
    case 'auto':
    case 'none':
      return type;
    default:
      throw new DomainError(
        'invalid_request',
        'tool_choice.type must be auto, any, tool or none',
        'tool_choice.type',
      );
  }
}

function chatTools(tools: MessagesRequestDto['tools']): ToolDto[] {
  if (tools === undefined || tools === null) return [];
  return listAt(tools, 'tools').map((entry, i) => {
    const tool = recordAt(entry, `tools[${i}]`);
    const description = tool['description'];
    return {
      type: 'function' as const,
      function: {
        name: stringAt(tool['name'], `tools[${i}].name`),
        ...(description !== undefined
          ? { description: stringAt(description, `tools[${i}].description`) }
          : {}),
        parameters: recordAt(tool['input_schema'], `tools[${i}].input_schema`),
      },
    };
  });
}

function stopSequences(stop: MessagesRequestDto['stop_sequences']): string[] {
  if (stop === undefined || stop === null) return [];
  return listAt(stop, 'stop_sequences').map((sequence, i) => stringAt(sequence, `stop_sequences[${i}]`));
}

/**
 * The chat body that runs a Messages request through the chat pipeline. `stop_sequences` become
 * the chat body's `stop` (sent on as each wire takes it); `top_k` has no counterpart and is not
 * passed on.
 */
export function messagesToChatBody(body: MessagesRequestDto, stream: boolean): ChatCompletionRequestDto {
  const choice = toolChoice(body.tool_choice);
  const tools = chatTools(body.tools);
  const stop = stopSequences(body.stop_sequences);
  // Optional chaining reads a property of any value without throwing, so these need no shape check.
  const thinking = body.thinking;
  return {
    model: body.model,
    messages: messagesConversation(body),
    max_tokens: body.max_tokens,
    stream,
    ...(body.temperature !== undefined ? { temperature: body.temperature } : {}),
    ...(body.top_p !== undefined ? { top_p: body.top_p } : {}),
    ...(tools.length > 0 ? { tools } : {}),
    ...(choice !== undefined ? { tool_choice: choice } : {}),
    ...(stop.length > 0 ? { stop } : {}),
    ...(thinking?.type === 'enabled'
      ? { reasoning: { enabled: true, max_tokens: thinking.budget_tokens } }
      : {}),
    ...(thinking?.type === 'disabled' ? { reasoning: { enabled: false } } : {}),
    ...(typeof body.metadata?.user_id === 'string' ? { user: body.metadata.user_id } : {}),
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

/** The chat usage in Anthropic's convention: what was read from or written to the cache is not in input_tokens. */
export function messagesUsage(usage: ChatCompletionUsage): MessagesUsage {
  const {
    cached_tokens: read,
    cache_write_tokens: written,
    cache_write_1h_tokens: writtenHour,
  } = usage.prompt_tokens_details;
  return {
    input_tokens: Math.max(0, usage.prompt_tokens - read - written),
    output_tokens: usage.completion_tokens,
    cache_creation_input_tokens: written,
    cache_read_input_tokens: read,
    cache_creation: {
      ephemeral_5m_input_tokens: written - writtenHour,
      ephemeral_1h_input_tokens: writtenHour,
    },
    server_tool_use: { web_search_requests: usage.server_tool_use.web_search_requests },
    cost_rub: usage.cost_rub,
    cost: usage.cost,
  };
}

/** Tool arguments are JSON text in the chat shape and an object here; text that does not parse is kept under `_raw`. */
export function toolInput(args: string): Record<string, unknown> {
  if (args.trim() === '') return {};
  try {
    const parsed: unknown = JSON.parse(args);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : { _raw: args };
  } catch {
    return { _raw: args };
  }
}

/**
 * A reasoning item as the thinking block a Messages client keeps and sends back: signed text and
 * Anthropic's redacted data as they were; a summary or unsigned text (another provider's) as
 * thinking with an empty signature, which is shown but never sent on to Anthropic. Another
 * provider's encrypted reasoning has no Messages form and is left out.
 */
export function thinkingBlock(detail: ReasoningDetail): MessagesContentBlock | null {
  if (detail.type === 'reasoning.encrypted')
    return detail.format === undefined || detail.format === ANTHROPIC_REASONING_FORMAT
      ? { type: 'redacted_thinking', data: detail.data }
      : null;
  const thinking = detail.type === 'reasoning.text' ? (detail.text ?? '') : detail.summary;
  const signature = detail.type === 'reasoning.text' ? (detail.signature ?? '') : '';
  return { type: 'thinking', thinking, signature };
}

export function messageFromCompletion(completion: ChatCompletion): MessagesResponse {
  const choice = completion.choices[0];
  const content: MessagesContentBlock[] = (choice?.message.reasoning_details ?? []).flatMap((detail) => {
    const block = thinkingBlock(detail);
    return block ? [block] : [];
  });
  if (choice?.message.content) content.push({ type: 'text', text: choice.message.content });
  for (const call of choice?.message.tool_calls ?? []) {
    content.push({
      type: 'tool_use',
      id: call.id,
      name: call.function.name,
      input: toolInput(call.function.arguments),
    });
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
  open: { kind: BlockKind; index: number } | null;
  /** Content block index of each streamed tool call, by its chat tool-call index. */
  toolBlocks: Record<number, number>;
  /** Content block index of each streamed reasoning item, by its index among the reasoning items. */
  reasoningBlocks: Record<number, number>;
}

type BlockKind = 'text' | 'tool_use' | 'thinking' | 'redacted_thinking';

const event = (data: NamedServerSentEvent['data']): NamedServerSentEvent => ({ event: data.type, data });

function closeOpen(state: MessagesStreamState, events: NamedServerSentEvent[]): MessagesStreamState {
  if (!state.open) return state;
  events.push(event({ type: 'content_block_stop', index: state.open.index }));
  return { ...state, open: null };
}

function openBlock(
  state: MessagesStreamState,
  events: NamedServerSentEvent[],
  block: Record<string, unknown>,
  kind: BlockKind,
): MessagesStreamState {
  const next = closeOpen(state, events);
  events.push(event({ type: 'content_block_start', index: next.nextBlock, content_block: block }));
  return { ...next, open: { kind, index: next.nextBlock }, nextBlock: next.nextBlock + 1 };
}

/**
 * `promptTokens` is the prompt's count when the chunk was sent: message_start carries it as
 * input_tokens, as Anthropic's own stream does; message_delta then carries the final usage.
 */
function onChunk(
  state: MessagesStreamState,
  events: NamedServerSentEvent[],
  chunk: ChatCompletionChunk,
  promptTokens: number,
): MessagesStreamState {
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
      usage: { input_tokens: promptTokens, output_tokens: 0 },
      provider: chunk.provider,
    };
    events.push(event({ type: 'message_start', message }));
    next = { ...next, started: true };
  }
  const choice = chunk.choices[0];
  if (!choice) return next;
  for (const piece of choice.delta.reasoning_details ?? []) next = onReasoning(next, events, piece);
  const text = choice.delta.content;
  if (text) {
    if (next.open?.kind !== 'text') next = openBlock(next, events, { type: 'text', text: '' }, 'text');
    events.push(
      event({ type: 'content_block_delta', index: next.open?.index, delta: { type: 'text_delta', text } }),
    );
  }
  for (const call of choice.delta.tool_calls ?? []) {
    if (next.toolBlocks[call.index] === undefined) {
      const block = {
        type: 'tool_use',
        id: call.id ?? `toolu_${call.index}`,
        name: call.function?.name ?? '',
        input: {},
      };
      next = openBlock(next, events, block, 'tool_use');
      next = { ...next, toolBlocks: { ...next.toolBlocks, [call.index]: next.nextBlock - 1 } };
    }
    const partial = call.function?.arguments;
    if (partial) {
      events.push(
        event({
          type: 'content_block_delta',
          index: next.toolBlocks[call.index],
          delta: { type: 'input_json_delta', partial_json: partial },
        }),
      );
    }
  }
  if (!choice.finish_reason) return next;
  next = closeOpen(next, events);
  const usage = chunk.usage ? messagesUsage(chunk.usage) : { output_tokens: 0 };
  events.push(
    event({
      type: 'message_delta',
      delta: { stop_reason: stopReason(choice.finish_reason), stop_sequence: null },
      usage,
    }),
  );
  events.push(event({ type: 'message_stop' }));
  return { ...next, finished: true };
}

/**
 * A piece of a reasoning item as Anthropic streams thinking: the item's block starts empty (a
 * redacted one whole, with its data), then its text arrives as thinking_delta and its signature
 * as one signature_delta, on that block's index.
 */
function onReasoning(
  state: MessagesStreamState,
  events: NamedServerSentEvent[],
  piece: ReasoningDetail,
): MessagesStreamState {
  let next = state;
  const item = piece.index ?? 0;
  if (next.reasoningBlocks[item] === undefined) {
    const block = thinkingBlock(
      piece.type === 'reasoning.text'
        ? { ...piece, text: '', signature: '' }
        : piece.type === 'reasoning.summary'
          ? { ...piece, summary: '' }
          : piece,
    );
    if (!block) return next;
    next = openBlock(next, events, block, block.type);
    next = { ...next, reasoningBlocks: { ...next.reasoningBlocks, [item]: next.nextBlock - 1 } };
  }
  const index = next.reasoningBlocks[item];
  const thinking =
    piece.type === 'reasoning.text' ? piece.text : piece.type === 'reasoning.summary' ? piece.summary : '';
  if (thinking)
    events.push(event({ type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking } }));
  if (piece.type === 'reasoning.text' && piece.signature)
    events.push(
      event({
        type: 'content_block_delta',
        index,
        delta: { type: 'signature_delta', signature: piece.signature },
      }),
    );
  return next;
}

export function messagesStreamTranslator(): StreamTranslator<MessagesStreamState> {
  return {
    initial: {
      started: false,
      finished: false,
      nextBlock: 0,
      open: null,
      toolBlocks: {},
      reasoningBlocks: {},
    },
    started: (state) => state.started,
    step: (state: MessagesStreamState, input: StreamInput): StreamStep<MessagesStreamState> => {
      if (state.finished) return { state, events: [] };
      const events: NamedServerSentEvent[] = [];
      if (input.kind === 'chunk')
        return { state: onChunk(state, events, input.chunk, input.promptTokens), events };
      events.push(
        event({
          type: 'error',
          error: { type: messagesErrorType(input.error.code), message: input.error.message },
        }),
      );
      return { state: { ...state, finished: true }, events };
    },
  };
}
