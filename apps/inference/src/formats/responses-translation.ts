import { parseModelAlias } from '@gw/alias';
import {
  type ChatCompletion,
  type ChatCompletionChunk,
  type ChatCompletionUsage,
  DomainError,
  type NamedServerSentEvent,
  OPENAI_RESPONSES_REASONING_FORMAT,
  type ReasoningDetail,
  reasoningText,
  type ResponsesFunctionCallItem,
  type ResponsesReasoningItem,
  type ResponsesMessageItem,
  type ResponsesOutputItem,
  type ResponsesResponse,
  type ResponsesUsage,
} from '@gw/contracts';
import type {
  ChatCompletionRequestDto,
  ChatContentPart,
  ChatMessageDto,
  ResponsesRequestDto,
  ToolDto,
} from '@gw/dto';
import type { StreamInput, StreamStep, StreamTranslator } from './event-stream';
import { contentAt, listAt, recordAt, stringAt, typedAt } from './input-shape';

// ---- request ----------------------------------------------------------------------------------
// Every access below goes through a shape check (input-shape.ts), so a body the validation let
// through with an odd shape is a 400 naming the field, never a TypeError.

type Part = Record<string, unknown> & { type: string };

/** The text of a text or refusal part; an image has none. */
function partText(part: Part, param: string): string {
  if (part.type === 'input_image') return '';
  const field = part.type === 'refusal' ? 'refusal' : 'text';
  return stringAt(part[field], `${param}.${field}`);
}

function partToChat(part: Part, param: string): ChatContentPart {
  if (part.type === 'input_image')
    return { type: 'image_url', image_url: { url: stringAt(part['image_url'], `${param}.image_url`) } };
  return { type: 'text', text: partText(part, param) };
}

function plainText(content: string | Part[], param: string): string {
  if (typeof content === 'string') return content;
  return content.map((part, i) => partText(part, `${param}[${i}]`)).join('');
}

const INPUT_ROLES: readonly string[] = ['user', 'assistant', 'system', 'developer'];

/** The texts of a reasoning item's `summary` or `content` parts. */
function reasoningTexts(parts: unknown, param: string): string[] {
  if (parts === undefined || parts === null) return [];
  return listAt(parts, param).map((part, i) =>
    stringAt(recordAt(part, `${param}[${i}]`)['text'], `${param}[${i}].text`),
  );
}

/**
 * A reasoning item sent back, as the chat's reasoning items: its summaries, its text with the
 * signature, its encrypted content. An item without `format` came from OpenAI, whose encrypted
 * reasoning it is; the gateway's own items name their provider's format.
 */
function reasoningItemDetails(item: Record<string, unknown>, at: string): ReasoningDetail[] {
  const format = item['format'] === undefined ? undefined : stringAt(item['format'], `${at}.format`);
  const id = item['id'] === undefined || item['id'] === null ? undefined : stringAt(item['id'], `${at}.id`);
  const origin = { ...(id !== undefined ? { id } : {}), ...(format !== undefined ? { format } : {}) };
  const details: ReasoningDetail[] = reasoningTexts(item['summary'], `${at}.summary`).map((summary) => ({
    type: 'reasoning.summary',
    summary,
    ...origin,
  }));
  const text = reasoningTexts(item['content'], `${at}.content`);
  const signature = item['signature'];
  if (text.length > 0 || typeof signature === 'string')
    details.push({
      type: 'reasoning.text',
      text: text.join(''),
      ...(typeof signature === 'string' ? { signature } : {}),
      ...origin,
    });
  const encrypted = item['encrypted_content'];
  if (encrypted !== undefined && encrypted !== null)
    details.push({
      type: 'reasoning.encrypted',
      data: stringAt(encrypted, `${at}.encrypted_content`),
      ...origin,
      format: format ?? OPENAI_RESPONSES_REASONING_FORMAT,
    });
  return details;
}

/** The assistant turn that reasoning opened and nothing else has joined yet. */
function reasoningOnly(message: ChatMessageDto | undefined): boolean {
  return (
    message?.role === 'assistant' &&
    message.reasoning_details !== undefined &&
    (message.content === null || message.content === '') &&
    !message.tool_calls?.length
  );
}

/** The Responses input as a chat conversation; function calls join the assistant turn they belong to. */
export function responsesConversation(
  body: Pick<ResponsesRequestDto, 'input' | 'instructions'>,
): ChatMessageDto[] {
  const instructions =
    body.instructions === undefined || body.instructions === null
      ? ''
      : stringAt(body.instructions, 'instructions');
  const messages: ChatMessageDto[] = instructions ? [{ role: 'system', content: instructions }] : [];
  const items =
    typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : listAt(body.input, 'input');
  items.forEach((entry, i) => {
    const at = `input[${i}]`;
    const item = recordAt(entry, at);
    if (item['type'] === 'reasoning') {
      // Reasoning opens the assistant turn its function calls and message then join.
      const details = reasoningItemDetails(item, at);
      const last = messages.at(-1);
      const turn: ChatMessageDto = last && reasoningOnly(last) ? last : { role: 'assistant', content: null };
      if (turn !== last) messages.push(turn);
      turn.reasoning_details = [...(turn.reasoning_details ?? []), ...details];
      turn.reasoning = reasoningText(turn.reasoning_details);
    } else if (item['type'] === 'function_call') {
      const function_ = {
        name: stringAt(item['name'], `${at}.name`),
        arguments: stringAt(item['arguments'], `${at}.arguments`),
      };
      const call = {
        id: stringAt(item['call_id'], `${at}.call_id`),
        type: 'function' as const,
        function: function_,
      };
      const last = messages.at(-1);
      if (last?.role === 'assistant') last.tool_calls = [...(last.tool_calls ?? []), call];
      else messages.push({ role: 'assistant', content: null, tool_calls: [call] });
    } else if (item['type'] === 'function_call_output') {
      const call = stringAt(item['call_id'], `${at}.call_id`);
      messages.push({
        role: 'tool',
        tool_call_id: call,
        content: plainText(contentAt(item['output'], `${at}.output`), `${at}.output`),
      });
    } else if (item['type'] === undefined || item['type'] === 'message') {
      const role = item['role'];
      if (typeof role !== 'string' || !INPUT_ROLES.includes(role)) {
        throw new DomainError(
          'invalid_request',
          `${at}.role must be one of ${INPUT_ROLES.join(', ')}`,
          `${at}.role`,
        );
      }
      const content = contentAt(item['content'], `${at}.content`);
      if (role === 'user') {
        messages.push({
          role: 'user',
          content:
            typeof content === 'string'
              ? content
              : content.map((part, p) => partToChat(part, `${at}.content[${p}]`)),
        });
      } else if (role === 'assistant' && reasoningOnly(messages.at(-1))) {
        (messages.at(-1) as ChatMessageDto).content = plainText(content, `${at}.content`);
      } else {
        messages.push({ role: role as ChatMessageDto['role'], content: plainText(content, `${at}.content`) });
      }
    } else {
      throw new DomainError(
        'invalid_request',
        `${at}.type must be message, function_call, function_call_output or reasoning`,
        `${at}.type`,
      );
    }
  });
  return messages;
}

function responseFormat(text: ResponsesRequestDto['text']): ChatCompletionRequestDto['response_format'] {
  if (text === undefined || text === null) return undefined;
  const format = recordAt(text, 'text')['format'];
  if (format === undefined || format === null) return undefined;
  const { type, name, schema, description, strict } = typedAt(format, 'text.format');
  if (type === 'text' || type === 'json_object') return { type };
  if (type !== 'json_schema')
    throw new DomainError(
      'invalid_request',
      'text.format.type must be text, json_object or json_schema',
      'text.format.type',
    );
  const jsonSchema = {
    name: stringAt(name, 'text.format.name'),
    schema: recordAt(schema, 'text.format.schema'),
    ...(description !== undefined ? { description } : {}),
    ...(strict !== undefined ? { strict } : {}),
  };
  return { type: 'json_schema', json_schema: jsonSchema };
}

function toolChoice(choice: ResponsesRequestDto['tool_choice']): ChatCompletionRequestDto['tool_choice'] {
  if (choice === undefined || choice === null) return undefined;
  if (typeof choice === 'string') return choice;
  return {
    type: 'function',
    function: { name: stringAt(recordAt(choice, 'tool_choice')['name'], 'tool_choice.name') },
  };
}

function chatTools(tools: ResponsesRequestDto['tools']): ToolDto[] {
  if (tools === undefined || tools === null) return [];
  return listAt(tools, 'tools').map((entry, i) => {
    const tool = recordAt(entry, `tools[${i}]`);
    const { description, parameters, strict } = tool;
    return {
      type: 'function' as const,
      function: {
        name: stringAt(tool['name'], `tools[${i}].name`),
        ...(description !== undefined
          ? { description: stringAt(description, `tools[${i}].description`) }
          : {}),
        ...(parameters !== undefined ? { parameters: recordAt(parameters, `tools[${i}].parameters`) } : {}),
        ...(typeof strict === 'boolean' ? { strict } : {}),
      },
    };
  });
}

/** The chat body that runs a Responses request through the chat pipeline. */
export function responsesToChatBody(body: ResponsesRequestDto, stream: boolean): ChatCompletionRequestDto {
  const format = responseFormat(body.text);
  const choice = toolChoice(body.tool_choice);
  const tools = chatTools(body.tools);
  return {
    model: body.model,
    messages: responsesConversation(body),
    stream,
    ...(body.max_output_tokens !== undefined ? { max_tokens: body.max_output_tokens } : {}),
    ...(body.temperature !== undefined ? { temperature: body.temperature } : {}),
    ...(body.top_p !== undefined ? { top_p: body.top_p } : {}),
    ...(tools.length > 0 ? { tools } : {}),
    ...(choice !== undefined ? { tool_choice: choice } : {}),
    ...(format ? { response_format: format } : {}),
    // Optional chaining reads a property of any value without throwing.
    ...(body.reasoning?.effort ? { reasoning: { effort: body.reasoning.effort } } : {}),
    ...(body.user !== undefined ? { user: body.user } : {}),
    ...(body.provider ? { provider: body.provider } : {}),
  };
}

/** A Responses client sent `input` and `max_output_tokens`: a refusal by the chat pipeline names those, not their chat counterparts. */
const RESPONSES_PARAM_OF: Readonly<Record<string, string>> = {
  messages: 'input',
  max_tokens: 'max_output_tokens',
};

export function responsesParam(chatParam: string | null): string | null {
  return chatParam !== null && Object.hasOwn(RESPONSES_PARAM_OF, chatParam)
    ? RESPONSES_PARAM_OF[chatParam]
    : chatParam;
}

// ---- response ---------------------------------------------------------------------------------

/** Item ids are derived from the generation id, so a response can be traced to its history record. */
export const messageItemId = (generationId: string): string =>
  `msg_${generationId.replace(/^gen-/, '').replace(/-/g, '')}`;
export const functionCallItemId = (callId: string): string =>
  `fc_${callId.replace(/^(call_|toolu_|fc_)/, '')}`;
/** The n-th reasoning item of a generation, where the provider gave the item no id. */
export const reasoningItemId = (generationId: string, n: number): string =>
  `rs_${generationId.replace(/^gen-/, '').replace(/-/g, '')}_${n}`;

/**
 * A reasoning item of the answer as OpenAI's reasoning item: a summary as `summary`, text as
 * `content` with its signature, hidden reasoning as `encrypted_content`; `format` says whose it is.
 */
export function reasoningItem(
  detail: ReasoningDetail,
  id: string,
  status: ResponsesReasoningItem['status'],
): ResponsesReasoningItem {
  return {
    type: 'reasoning',
    id: detail.id ?? id,
    summary: detail.type === 'reasoning.summary' ? [{ type: 'summary_text', text: detail.summary }] : [],
    ...(detail.type === 'reasoning.text'
      ? {
          content: [{ type: 'reasoning_text' as const, text: detail.text ?? '' }],
          ...(detail.signature ? { signature: detail.signature } : {}),
        }
      : {}),
    ...(detail.type === 'reasoning.encrypted' ? { encrypted_content: detail.data } : {}),
    ...(detail.format ? { format: detail.format } : {}),
    status,
  };
}

function responsesStatus(
  finishReason: string | null,
): Pick<ResponsesResponse, 'status' | 'incomplete_details'> {
  if (finishReason === 'length')
    return { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } };
  if (finishReason === 'content_filter')
    return { status: 'incomplete', incomplete_details: { reason: 'content_filter' } };
  return { status: 'completed', incomplete_details: null };
}

export function responsesUsage(usage: ChatCompletionUsage): ResponsesUsage {
  return {
    input_tokens: usage.prompt_tokens,
    input_tokens_details: {
      cached_tokens: usage.prompt_tokens_details.cached_tokens,
      cache_write_tokens: usage.prompt_tokens_details.cache_write_tokens,
    },
    output_tokens: usage.completion_tokens,
    output_tokens_details: { reasoning_tokens: usage.completion_tokens_details.reasoning_tokens },
    total_tokens: usage.total_tokens,
    cost_rub: usage.cost_rub,
    cost: usage.cost,
  };
}

interface ResponseHead {
  id: string;
  createdAt: number;
  model: string;
  provider: string | null;
}

/**
 * The effort asked for in the body or in the model's alias, which stands for the body field. The chat
 * pipeline refused an invalid alias before any response exists.
 */
function requestedEffort(body: ResponsesRequestDto): string | null {
  return body.reasoning?.effort ?? parseModelAlias(body.model).reasoningEffort ?? null;
}

/** The response object before any output: request settings echoed as OpenAI does. */
export function responseShell(head: ResponseHead, body: ResponsesRequestDto): ResponsesResponse {
  return {
    id: head.id,
    object: 'response',
    created_at: head.createdAt,
    status: 'in_progress',
    error: null,
    incomplete_details: null,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    model: head.model,
    output: [],
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    previous_response_id: null,
    reasoning: { effort: requestedEffort(body), summary: null },
    store: false,
    temperature: body.temperature ?? null,
    text: { format: body.text?.format ? { ...body.text.format } : { type: 'text' } },
    tool_choice: body.tool_choice ?? 'auto',
    tools: body.tools ?? [],
    top_p: body.top_p ?? null,
    truncation: 'disabled',
    usage: null,
    user: body.user ?? null,
    metadata: body.metadata ?? {},
    provider: head.provider,
  };
}

function messageItem(
  generationId: string,
  text: string,
  status: ResponsesMessageItem['status'],
): ResponsesMessageItem {
  return {
    type: 'message',
    id: messageItemId(generationId),
    role: 'assistant',
    status,
    content: [{ type: 'output_text', text, annotations: [] }],
  };
}

export function responseFromCompletion(
  completion: ChatCompletion,
  body: ResponsesRequestDto,
): ResponsesResponse {
  const choice = completion.choices[0];
  const { status, incomplete_details } = responsesStatus(choice?.finish_reason ?? null);
  const output: ResponsesOutputItem[] = (choice?.message.reasoning_details ?? []).map((detail, n) =>
    reasoningItem(detail, reasoningItemId(completion.id, n), 'completed'),
  );
  const calls = choice?.message.tool_calls ?? [];
  const text = choice?.message.content ?? '';
  if (text !== '' || calls.length === 0)
    output.push(messageItem(completion.id, text, status === 'completed' ? 'completed' : 'incomplete'));
  for (const call of calls) {
    output.push({
      type: 'function_call',
      id: functionCallItemId(call.id),
      call_id: call.id,
      name: call.function.name,
      arguments: call.function.arguments,
      status: 'completed',
    });
  }
  const shell = responseShell(
    {
      id: completion.id,
      createdAt: completion.created,
      model: completion.model,
      provider: completion.provider,
    },
    body,
  );
  return { ...shell, status, incomplete_details, output, usage: responsesUsage(completion.usage) };
}

// ---- stream -----------------------------------------------------------------------------------

type OpenItem = { kind: 'message' | 'function_call' | 'reasoning'; outputIndex: number };

export interface ResponsesStreamState {
  body: ResponsesRequestDto;
  shell: ResponsesResponse | null;
  sequence: number;
  output: ResponsesOutputItem[];
  open: OpenItem | null;
  /** Output index of each streamed tool call, by its chat tool-call index. */
  toolItems: Record<number, number>;
  /** Output index of each streamed reasoning item, by its index among the reasoning items. */
  reasoningItems: Record<number, number>;
  finished: boolean;
}

type Draft = NamedServerSentEvent['data'];

/** Collects events of one step and numbers them as they are appended. */
class Emitter {
  readonly events: NamedServerSentEvent[] = [];
  constructor(private sequence: number) {}
  emit(data: Draft): void {
    this.events.push({ event: data.type, data: { ...data, sequence_number: this.sequence++ } });
  }
  get next(): number {
    return this.sequence;
  }
}

const clone = <T>(value: T): T => structuredClone(value);

function replaceItem(
  output: ResponsesOutputItem[],
  index: number,
  item: ResponsesOutputItem,
): ResponsesOutputItem[] {
  return output.map((existing, i) => (i === index ? item : existing));
}

function closeOpen(
  state: ResponsesStreamState,
  out: Emitter,
  status: 'completed' | 'incomplete',
): ResponsesStreamState {
  if (!state.open) return state;
  const index = state.open.outputIndex;
  const item = state.output[index];
  if (item.type === 'message') {
    const part = item.content[0];
    out.emit({
      type: 'response.output_text.done',
      item_id: item.id,
      output_index: index,
      content_index: 0,
      text: part.text,
      logprobs: [],
    });
    out.emit({
      type: 'response.content_part.done',
      item_id: item.id,
      output_index: index,
      content_index: 0,
      part: clone(part),
    });
  } else if (item.type === 'reasoning') {
    closeReasoning(item, index, out);
  } else {
    out.emit({
      type: 'response.function_call_arguments.done',
      item_id: item.id,
      output_index: index,
      name: item.name,
      arguments: item.arguments,
    });
  }
  const done: ResponsesOutputItem = { ...clone(item), status };
  out.emit({ type: 'response.output_item.done', output_index: index, item: clone(done) });
  return { ...state, open: null, output: replaceItem(state.output, index, done) };
}

/** OpenAI's closing events of a reasoning item's text or summary. */
function closeReasoning(item: ResponsesReasoningItem, index: number, out: Emitter): void {
  const at = { item_id: item.id, output_index: index };
  const text = item.content?.[0]?.text;
  if (text) out.emit({ type: 'response.reasoning_text.done', ...at, content_index: 0, text });
  const summary = item.summary[0];
  if (summary) {
    out.emit({ type: 'response.reasoning_summary_text.done', ...at, summary_index: 0, text: summary.text });
    out.emit({ type: 'response.reasoning_summary_part.done', ...at, summary_index: 0, part: clone(summary) });
  }
}

/**
 * A piece of a reasoning item, streamed as OpenAI streams reasoning: the item is added empty, its
 * text arrives as reasoning_text deltas and a summary as reasoning_summary_text deltas; a signature
 * or encrypted content is set on the item, which output_item.done then carries whole.
 */
function applyReasoning(
  state: ResponsesStreamState,
  out: Emitter,
  piece: ReasoningDetail,
  generationId: string,
): ResponsesStreamState {
  let next = state;
  const key = piece.index ?? 0;
  let index = next.reasoningItems[key];
  if (index === undefined) {
    next = closeOpen(next, out, 'completed');
    index = next.output.length;
    const item: ResponsesReasoningItem = {
      type: 'reasoning',
      id: piece.id ?? reasoningItemId(generationId, key),
      summary: [],
      ...(piece.format ? { format: piece.format } : {}),
      status: 'in_progress',
    };
    out.emit({ type: 'response.output_item.added', output_index: index, item: clone(item) });
    next = {
      ...next,
      open: { kind: 'reasoning', outputIndex: index },
      output: [...next.output, item],
      reasoningItems: { ...next.reasoningItems, [key]: index },
    };
  }
  const item = clone(next.output[index] as ResponsesReasoningItem);
  const at = { item_id: item.id, output_index: index };
  if (piece.type === 'reasoning.text') {
    if (piece.text) {
      out.emit({ type: 'response.reasoning_text.delta', ...at, content_index: 0, delta: piece.text });
      const content = item.content?.[0] ?? { type: 'reasoning_text' as const, text: '' };
      item.content = [{ ...content, text: content.text + piece.text }];
    }
    if (piece.signature) item.signature = piece.signature;
  }
  if (piece.type === 'reasoning.summary' && piece.summary) {
    if (item.summary.length === 0) {
      item.summary = [{ type: 'summary_text', text: '' }];
      out.emit({
        type: 'response.reasoning_summary_part.added',
        ...at,
        summary_index: 0,
        part: { type: 'summary_text', text: '' },
      });
    }
    out.emit({
      type: 'response.reasoning_summary_text.delta',
      ...at,
      summary_index: 0,
      delta: piece.summary,
    });
    item.summary = [{ type: 'summary_text', text: item.summary[0].text + piece.summary }];
  }
  if (piece.type === 'reasoning.encrypted')
    item.encrypted_content = (item.encrypted_content ?? '') + piece.data;
  return { ...next, output: replaceItem(next.output, index, item) };
}

function openMessage(state: ResponsesStreamState, out: Emitter, generationId: string): ResponsesStreamState {
  const index = state.output.length;
  const item: ResponsesMessageItem = {
    type: 'message',
    id: messageItemId(generationId),
    role: 'assistant',
    status: 'in_progress',
    content: [],
  };
  const part = { type: 'output_text' as const, text: '', annotations: [] };
  out.emit({ type: 'response.output_item.added', output_index: index, item: clone(item) });
  out.emit({
    type: 'response.content_part.added',
    item_id: item.id,
    output_index: index,
    content_index: 0,
    part: clone(part),
  });
  return {
    ...state,
    open: { kind: 'message', outputIndex: index },
    output: [...state.output, { ...item, content: [part] }],
  };
}

function appendText(state: ResponsesStreamState, out: Emitter, text: string): ResponsesStreamState {
  const index = state.open?.outputIndex ?? -1;
  const item = state.output[index] as ResponsesMessageItem;
  out.emit({
    type: 'response.output_text.delta',
    item_id: item.id,
    output_index: index,
    content_index: 0,
    delta: text,
    logprobs: [],
  });
  const part = { ...item.content[0], text: item.content[0].text + text };
  return { ...state, output: replaceItem(state.output, index, { ...item, content: [part] }) };
}

function applyToolDelta(
  state: ResponsesStreamState,
  out: Emitter,
  delta: NonNullable<ChatCompletionChunk['choices'][number]['delta']['tool_calls']>[number],
): ResponsesStreamState {
  let next = state;
  let index = next.toolItems[delta.index];
  if (index === undefined) {
    next = closeOpen(next, out, 'completed');
    index = next.output.length;
    const callId = delta.id ?? `call_${delta.index}`;
    const item: ResponsesFunctionCallItem = {
      type: 'function_call',
      id: functionCallItemId(callId),
      call_id: callId,
      name: delta.function?.name ?? '',
      arguments: '',
      status: 'in_progress',
    };
    out.emit({ type: 'response.output_item.added', output_index: index, item: clone(item) });
    next = {
      ...next,
      open: { kind: 'function_call', outputIndex: index },
      output: [...next.output, item],
      toolItems: { ...next.toolItems, [delta.index]: index },
    };
  }
  const args = delta.function?.arguments ?? '';
  if (args === '') return next;
  const item = next.output[index] as ResponsesFunctionCallItem;
  out.emit({
    type: 'response.function_call_arguments.delta',
    item_id: item.id,
    output_index: index,
    delta: args,
  });
  return { ...next, output: replaceItem(next.output, index, { ...item, arguments: item.arguments + args }) };
}

function finish(
  state: ResponsesStreamState,
  out: Emitter,
  chunk: ChatCompletionChunk,
  finishReason: string,
): ResponsesStreamState {
  const { status, incomplete_details } = responsesStatus(finishReason);
  const itemStatus = status === 'completed' ? 'completed' : 'incomplete';
  let next = closeOpen(state, out, itemStatus);
  if (next.output.every((item) => item.type === 'reasoning'))
    next = closeOpen(openMessage(next, out, chunk.id), out, itemStatus);
  const shell = next.shell as ResponsesResponse;
  const response: ResponsesResponse = {
    ...shell,
    status,
    incomplete_details,
    output: clone(next.output),
    usage: chunk.usage ? responsesUsage(chunk.usage) : null,
  };
  out.emit({ type: status === 'completed' ? 'response.completed' : 'response.incomplete', response });
  return { ...next, finished: true };
}

function onChunk(
  state: ResponsesStreamState,
  out: Emitter,
  chunk: ChatCompletionChunk,
): ResponsesStreamState {
  let next = state;
  if (!next.shell) {
    const shell = responseShell(
      { id: chunk.id, createdAt: chunk.created, model: chunk.model, provider: chunk.provider },
      next.body,
    );
    out.emit({ type: 'response.created', response: clone(shell) });
    out.emit({ type: 'response.in_progress', response: clone(shell) });
    next = { ...next, shell };
  }
  const choice = chunk.choices[0];
  if (!choice) return next;
  for (const piece of choice.delta.reasoning_details ?? []) next = applyReasoning(next, out, piece, chunk.id);
  if (choice.delta.content) {
    if (next.open?.kind !== 'message') next = openMessage(closeOpen(next, out, 'completed'), out, chunk.id);
    next = appendText(next, out, choice.delta.content);
  }
  for (const delta of choice.delta.tool_calls ?? []) next = applyToolDelta(next, out, delta);
  return choice.finish_reason ? finish(next, out, chunk, choice.finish_reason) : next;
}

export function responsesStreamTranslator(body: ResponsesRequestDto): StreamTranslator<ResponsesStreamState> {
  return {
    initial: {
      body,
      shell: null,
      sequence: 0,
      output: [],
      open: null,
      toolItems: {},
      reasoningItems: {},
      finished: false,
    },
    started: (state) => state.shell !== null,
    step: (state: ResponsesStreamState, input: StreamInput): StreamStep<ResponsesStreamState> => {
      if (state.finished) return { state, events: [] };
      const out = new Emitter(state.sequence);
      let next: ResponsesStreamState;
      if (input.kind === 'chunk') {
        next = onChunk(state, out, input.chunk);
      } else {
        out.emit({
          type: 'error',
          code: input.error.code,
          message: input.error.message,
          param: input.error.param,
        });
        next = { ...state, finished: true };
      }
      return { state: { ...next, sequence: out.next }, events: out.events };
    },
  };
}
