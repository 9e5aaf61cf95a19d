import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionUsage,
  NamedServerSentEvent,
  ResponsesFunctionCallItem,
  ResponsesMessageItem,
  ResponsesOutputItem,
  ResponsesResponse,
  ResponsesUsage,
} from '@gw/contracts';
import type { ChatCompletionRequestDto, ChatContentPart, ChatMessageDto, ResponsesInputPart, ResponsesRequestDto } from '@gw/dto';
import type { StreamInput, StreamStep, StreamTranslator } from './event-stream';

// ---- request ----------------------------------------------------------------------------------

function partToChat(part: ResponsesInputPart): ChatContentPart {
  switch (part.type) {
    case 'input_image':
      return { type: 'image_url', image_url: { url: part.image_url } };
    case 'refusal':
      return { type: 'text', text: part.refusal };
    default:
      return { type: 'text', text: part.text };
  }
}

function plainText(content: string | ResponsesInputPart[]): string {
  if (typeof content === 'string') return content;
  return content.map((part) => (part.type === 'refusal' ? part.refusal : part.type === 'input_image' ? '' : part.text)).join('');
}

/** The Responses input as a chat conversation; function calls join the assistant turn they belong to. */
export function responsesConversation(body: Pick<ResponsesRequestDto, 'input' | 'instructions'>): ChatMessageDto[] {
  const messages: ChatMessageDto[] = body.instructions ? [{ role: 'system', content: body.instructions }] : [];
  const items = typeof body.input === 'string' ? [{ role: 'user' as const, content: body.input }] : body.input;
  for (const item of items) {
    if (item.type === 'function_call') {
      const call = { id: item.call_id, type: 'function' as const, function: { name: item.name, arguments: item.arguments } };
      const last = messages.at(-1);
      if (last?.role === 'assistant') last.tool_calls = [...(last.tool_calls ?? []), call];
      else messages.push({ role: 'assistant', content: null, tool_calls: [call] });
    } else if (item.type === 'function_call_output') {
      messages.push({ role: 'tool', tool_call_id: item.call_id, content: plainText(item.output) });
    } else if (item.role === 'user') {
      messages.push({ role: 'user', content: typeof item.content === 'string' ? item.content : item.content.map(partToChat) });
    } else {
      messages.push({ role: item.role, content: plainText(item.content) });
    }
  }
  return messages;
}

function responseFormat(format: NonNullable<ResponsesRequestDto['text']>['format']): ChatCompletionRequestDto['response_format'] {
  if (!format) return undefined;
  if (format.type !== 'json_schema') return { type: format.type };
  const schema = {
    name: format.name,
    schema: format.schema,
    ...(format.description !== undefined ? { description: format.description } : {}),
    ...(format.strict !== undefined ? { strict: format.strict } : {}),
  };
  return { type: 'json_schema', json_schema: schema };
}

function toolChoice(choice: ResponsesRequestDto['tool_choice']): ChatCompletionRequestDto['tool_choice'] {
  if (choice === undefined || typeof choice === 'string') return choice;
  return { type: 'function', function: { name: choice.name } };
}

/** The chat body that runs a Responses request through the chat pipeline. */
export function responsesToChatBody(body: ResponsesRequestDto, stream: boolean): ChatCompletionRequestDto {
  const format = responseFormat(body.text?.format);
  const choice = toolChoice(body.tool_choice);
  return {
    model: body.model,
    messages: responsesConversation(body),
    stream,
    ...(body.max_output_tokens !== undefined ? { max_tokens: body.max_output_tokens } : {}),
    ...(body.temperature !== undefined ? { temperature: body.temperature } : {}),
    ...(body.top_p !== undefined ? { top_p: body.top_p } : {}),
    ...(body.tools?.length
      ? {
          tools: body.tools.map((tool) => ({
            type: 'function' as const,
            function: {
              name: tool.name,
              ...(tool.description !== undefined ? { description: tool.description } : {}),
              ...(tool.parameters !== undefined ? { parameters: tool.parameters } : {}),
              ...(tool.strict !== undefined ? { strict: tool.strict } : {}),
            },
          })),
        }
      : {}),
    ...(choice !== undefined ? { tool_choice: choice } : {}),
    ...(format ? { response_format: format } : {}),
    ...(body.reasoning?.effort ? { reasoning: { effort: body.reasoning.effort } } : {}),
    ...(body.user !== undefined ? { user: body.user } : {}),
    ...(body.provider ? { provider: body.provider } : {}),
  };
}

// ---- response ---------------------------------------------------------------------------------

/** Item ids are derived from the generation id, so a response can be traced to its history record. */
export const messageItemId = (generationId: string): string => `msg_${generationId.replace(/^gen-/, '').replace(/-/g, '')}`;
export const functionCallItemId = (callId: string): string => `fc_${callId.replace(/^(call_|toolu_|fc_)/, '')}`;

function responsesStatus(finishReason: string | null): Pick<ResponsesResponse, 'status' | 'incomplete_details'> {
  if (finishReason === 'length') return { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } };
  if (finishReason === 'content_filter') return { status: 'incomplete', incomplete_details: { reason: 'content_filter' } };
  return { status: 'completed', incomplete_details: null };
}

export function responsesUsage(usage: ChatCompletionUsage): ResponsesUsage {
  return {
    input_tokens: usage.prompt_tokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: usage.completion_tokens,
    output_tokens_details: { reasoning_tokens: 0 },
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
    reasoning: { effort: body.reasoning?.effort ?? null, summary: null },
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

function messageItem(generationId: string, text: string, status: ResponsesMessageItem['status']): ResponsesMessageItem {
  return { type: 'message', id: messageItemId(generationId), role: 'assistant', status, content: [{ type: 'output_text', text, annotations: [] }] };
}

export function responseFromCompletion(completion: ChatCompletion, body: ResponsesRequestDto): ResponsesResponse {
  const choice = completion.choices[0];
  const { status, incomplete_details } = responsesStatus(choice?.finish_reason ?? null);
  const output: ResponsesOutputItem[] = [];
  const calls = choice?.message.tool_calls ?? [];
  const text = choice?.message.content ?? '';
  if (text !== '' || calls.length === 0) output.push(messageItem(completion.id, text, status === 'completed' ? 'completed' : 'incomplete'));
  for (const call of calls) {
    output.push({ type: 'function_call', id: functionCallItemId(call.id), call_id: call.id, name: call.function.name, arguments: call.function.arguments, status: 'completed' });
  }
  const shell = responseShell({ id: completion.id, createdAt: completion.created, model: completion.model, provider: completion.provider }, body);
  return { ...shell, status, incomplete_details, output, usage: responsesUsage(completion.usage) };
}

// ---- stream -----------------------------------------------------------------------------------

type OpenItem = { kind: 'message'; outputIndex: number } | { kind: 'function_call'; outputIndex: number };

export interface ResponsesStreamState {
  body: ResponsesRequestDto;
  shell: ResponsesResponse | null;
  sequence: number;
  output: ResponsesOutputItem[];
  open: OpenItem | null;
  /** Output index of each streamed tool call, by its chat tool-call index. */
  toolItems: Record<number, number>;
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

function replaceItem(output: ResponsesOutputItem[], index: number, item: ResponsesOutputItem): ResponsesOutputItem[] {
  return output.map((existing, i) => (i === index ? item : existing));
}

function closeOpen(state: ResponsesStreamState, out: Emitter, status: 'completed' | 'incomplete'): ResponsesStreamState {
  if (!state.open) return state;
  const index = state.open.outputIndex;
  const item = state.output[index];
  if (item.type === 'message') {
    const part = item.content[0];
    out.emit({ type: 'response.output_text.done', item_id: item.id, output_index: index, content_index: 0, text: part.text, logprobs: [] });
    out.emit({ type: 'response.content_part.done', item_id: item.id, output_index: index, content_index: 0, part: clone(part) });
  } else {
    out.emit({ type: 'response.function_call_arguments.done', item_id: item.id, output_index: index, name: item.name, arguments: item.arguments });
  }
  const done: ResponsesOutputItem = { ...clone(item), status };
  out.emit({ type: 'response.output_item.done', output_index: index, item: clone(done) });
  return { ...state, open: null, output: replaceItem(state.output, index, done) };
}

function openMessage(state: ResponsesStreamState, out: Emitter, generationId: string): ResponsesStreamState {
  const index = state.output.length;
  const item: ResponsesMessageItem = { type: 'message', id: messageItemId(generationId), role: 'assistant', status: 'in_progress', content: [] };
  const part = { type: 'output_text' as const, text: '', annotations: [] };
  out.emit({ type: 'response.output_item.added', output_index: index, item: clone(item) });
  out.emit({ type: 'response.content_part.added', item_id: item.id, output_index: index, content_index: 0, part: clone(part) });
  return { ...state, open: { kind: 'message', outputIndex: index }, output: [...state.output, { ...item, content: [part] }] };
}

function appendText(state: ResponsesStreamState, out: Emitter, text: string): ResponsesStreamState {
  const index = state.open?.outputIndex ?? -1;
  const item = state.output[index] as ResponsesMessageItem;
  out.emit({ type: 'response.output_text.delta', item_id: item.id, output_index: index, content_index: 0, delta: text, logprobs: [] });
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
    next = { ...next, open: { kind: 'function_call', outputIndex: index }, output: [...next.output, item], toolItems: { ...next.toolItems, [delta.index]: index } };
  }
  const args = delta.function?.arguments ?? '';
  if (args === '') return next;
  const item = next.output[index] as ResponsesFunctionCallItem;
  out.emit({ type: 'response.function_call_arguments.delta', item_id: item.id, output_index: index, delta: args });
  return { ...next, output: replaceItem(next.output, index, { ...item, arguments: item.arguments + args }) };
}

function finish(state: ResponsesStreamState, out: Emitter, chunk: ChatCompletionChunk, finishReason: string): ResponsesStreamState {
  const { status, incomplete_details } = responsesStatus(finishReason);
  const itemStatus = status === 'completed' ? 'completed' : 'incomplete';
  let next = closeOpen(state, out, itemStatus);
  if (next.output.length === 0) next = closeOpen(openMessage(next, out, chunk.id), out, itemStatus);
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

function onChunk(state: ResponsesStreamState, out: Emitter, chunk: ChatCompletionChunk): ResponsesStreamState {
  let next = state;
  if (!next.shell) {
    const shell = responseShell({ id: chunk.id, createdAt: chunk.created, model: chunk.model, provider: chunk.provider }, next.body);
    out.emit({ type: 'response.created', response: clone(shell) });
    out.emit({ type: 'response.in_progress', response: clone(shell) });
    next = { ...next, shell };
  }
  const choice = chunk.choices[0];
  if (!choice) return next;
  if (choice.delta.content) {
    if (next.open?.kind !== 'message') next = openMessage(closeOpen(next, out, 'completed'), out, chunk.id);
    next = appendText(next, out, choice.delta.content);
  }
  for (const delta of choice.delta.tool_calls ?? []) next = applyToolDelta(next, out, delta);
  return choice.finish_reason ? finish(next, out, chunk, choice.finish_reason) : next;
}

export function responsesStreamTranslator(body: ResponsesRequestDto): StreamTranslator<ResponsesStreamState> {
  return {
    initial: { body, shell: null, sequence: 0, output: [], open: null, toolItems: {}, finished: false },
    started: (state) => state.shell !== null,
    step: (state: ResponsesStreamState, input: StreamInput): StreamStep<ResponsesStreamState> => {
      if (state.finished) return { state, events: [] };
      const out = new Emitter(state.sequence);
      let next: ResponsesStreamState;
      if (input.kind === 'chunk') {
        next = onChunk(state, out, input.chunk);
      } else {
        out.emit({ type: 'error', code: input.error.code, message: input.error.message, param: input.error.param });
        next = { ...state, finished: true };
      }
      return { state: { ...next, sequence: out.next }, events: out.events };
    },
  };
}
