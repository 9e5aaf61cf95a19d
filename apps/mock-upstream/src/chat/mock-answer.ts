/**
 * The deterministic behaviour of every mock provider, independent of the wire format.
 *
 * Token rule (documented for tests and the demo):
 * - a message's text is its string content, or its text parts joined by a space;
 * - prompt tokens = whitespace-separated words of every message text (the system prompt counts as
 *   a message) + 4 per message;
 * - the answer is the last user text with the markers removed and whitespace collapsed to single
 *   spaces; completion tokens = its words;
 * - a stop sequence cuts the answer before its first occurrence (finish `stop`, the sequence reported);
 *   the earliest occurrence of any of them counts, and tool-call answers are not cut;
 * - `max_tokens` then keeps the first that many words (finish `length`).
 *
 * Markers in the last user text: `[[fail:NNN]]` answers status NNN, `[[retry-after:S]]` adds a
 * `Retry-After: S` header to that answer, `[[delay:MS]]` waits before the first byte,
 * `[[slow:MS]]` waits between two content chunks of a stream, `[[filter]]` blocks the answer
 * (`content_filter`, empty content), `[[drop]]` cuts the connection (after the first content chunk
 * of a stream, at once for a plain call), `[[use-tool]]` calls the first declared tool as a model
 * does of its own accord (tool_choice auto, which is all Anthropic allows with thinking), and
 * `[[redacted-thinking]]` answers thinking redacted (see mock-thinking.ts).
 *
 * Faults inside a stream that began with 200, as providers and the proxies before them send them:
 * `[[error-event:WHEN:CLASS]]` sends the wire's own error event (Anthropic's `event: error`,
 * OpenAI's `{"error": …}` data line) and ends the stream; `[[malformed:WHEN]]` sends a `data:` line
 * that is not JSON and goes on; `[[stall:WHEN]]` sends nothing more and holds the connection open
 * until the caller gives up (a plain call: its 200 headers, then no body). WHEN is `first` (before
 * any output) or `mid` (after the first content chunk); CLASS is `overloaded`, `rate_limit` or
 * `server`. A plain call answers an error event as the status the wire uses for its class (529 or
 * 503, 429, 500).
 *
 * Refusals of the request, as each wire's provider answers them (400 and its error body):
 * `[[refuse:context_length]]` a prompt longer than the model takes (OpenAI's
 * `context_length_exceeded`, Anthropic's "prompt is too long"), `[[refuse:invalid]]` a parameter
 * out of range. A key that begins with `revoked` is refused with 401 on every route
 * (upstream-credentials.ts), as a provider refuses a key it revoked.
 *
 * Usage parts, so that tests can bill every price a chat has (N tokens or calls, added to what the
 * answer reports): `[[cache-read:N]]` a prompt prefix read from the cache, `[[cache-write:N]]`
 * and `[[cache-write-1h:N]]` one written to the five-minute and the one-hour cache,
 * `[[audio-in:N]]` and `[[image-in:N]]` audio and images in the prompt, `[[reasoning:N]]` hidden
 * reasoning and `[[audio-out:N]]` audio in the answer, `[[web-search:N]]` searches run. Each wire
 * reports them as its provider does: Alpha (OpenAI, OpenRouter) counts the prompt parts in
 * prompt_tokens with prompt_tokens_details (cached_tokens, cache_write_tokens of both durations,
 * audio_tokens, image_tokens), the answer parts in completion_tokens with
 * completion_tokens_details, the searches in server_tool_use; Beta (Anthropic) leaves the cached and
 * written tokens out of input_tokens (cache_read_input_tokens, cache_creation_input_tokens split
 * in cache_creation by duration), counts audio and images as input and reasoning and audio as
 * output without telling them apart, as Anthropic does, and the searches in server_tool_use.
 */
export interface MockFaults {
  failStatus: number | null;
  retryAfterSeconds: number | null;
  errorEvent: { when: StreamFaultPoint; errorClass: MockErrorClass } | null;
  refusal: MockRefusal | null;
  malformed: StreamFaultPoint | null;
  /** Where a stream falls silent with its connection held open (a plain call: after its headers). */
  stall: StreamFaultPoint | null;
  delayMs: number;
  /** Pause between two streamed content chunks, so a test can act in the middle of a stream. */
  slowMs: number;
  filter: boolean;
  drop: boolean;
  useTool: boolean;
  redactedThinking: boolean;
}

/** The usage parts the markers asked for (see the header); zero where none did. */
export interface MockUsageParts {
  cacheRead: number;
  cacheWrite: number;
  cacheWrite1h: number;
  audioIn: number;
  imageIn: number;
  reasoning: number;
  audioOut: number;
  webSearches: number;
}

const NO_PARTS: MockUsageParts = {
  cacheRead: 0,
  cacheWrite: 0,
  cacheWrite1h: 0,
  audioIn: 0,
  imageIn: 0,
  reasoning: 0,
  audioOut: 0,
  webSearches: 0,
};

const PART_MARKERS: Record<string, keyof MockUsageParts> = {
  'cache-read': 'cacheRead',
  'cache-write': 'cacheWrite',
  'cache-write-1h': 'cacheWrite1h',
  'audio-in': 'audioIn',
  'image-in': 'imageIn',
  reasoning: 'reasoning',
  'audio-out': 'audioOut',
  'web-search': 'webSearches',
};

export type MockFinish = 'stop' | 'length' | 'tool_calls' | 'content_filter';
export type StreamFaultPoint = 'first' | 'mid';
export type MockErrorClass = 'overloaded' | 'rate_limit' | 'server';
export type MockRefusal = 'context_length' | 'invalid';

export interface MockAnswer {
  /** The words of the answer; the content is these joined by single spaces. */
  words: string[];
  finish: MockFinish;
  /** Set when the answer is a call of this tool, with the answer text as its argument. */
  toolName: string | null;
  /** The stop sequence that ended the answer, if one did. */
  stopSequence: string | null;
  promptTokens: number;
  completionTokens: number;
  faults: MockFaults;
  /** Reported on top of promptTokens and completionTokens, as the markers asked. */
  parts: MockUsageParts;
}

export interface MockConversation {
  /** Every message text, the system prompt included. */
  texts: string[];
  lastUserText: string;
  maxTokens: number | null;
  /** The tool the model is forced to call, if any. */
  forcedTool: string | null;
  /** The first tool declared, which `[[use-tool]]` calls. */
  firstTool?: string | null;
  /** Sequences that end the answer before they would be output. */
  stop: string[];
}

const MAX_DELAY_MS = 600_000;
const MARKER =
  /\[\[(fail|delay|slow|retry-after|cache-read|cache-write-1h|cache-write|audio-in|image-in|reasoning|audio-out|web-search):(\d+)\]\]|\[\[(filter|drop|use-tool|redacted-thinking)\]\]|\[\[error-event:(first|mid):(overloaded|rate_limit|server)\]\]|\[\[malformed:(first|mid)\]\]|\[\[refuse:(context_length|invalid)\]\]|\[\[stall:(first|mid)\]\]/g;

export function words(text: string): string[] {
  return text.split(/\s+/).filter((word) => word.length > 0);
}

export function extractFaults(text: string): { text: string; faults: MockFaults; parts: MockUsageParts } {
  const parts = { ...NO_PARTS };
  const faults: MockFaults = {
    failStatus: null,
    retryAfterSeconds: null,
    errorEvent: null,
    refusal: null,
    malformed: null,
    stall: null,
    delayMs: 0,
    slowMs: 0,
    filter: false,
    drop: false,
    useTool: false,
    redactedThinking: false,
  };
  const stripped = text.replace(
    MARKER,
    (
      _match,
      name: string | undefined,
      value: string | undefined,
      flag: string | undefined,
      errorWhen: StreamFaultPoint | undefined,
      errorClass: MockErrorClass | undefined,
      malformedWhen: StreamFaultPoint | undefined,
      refusal: MockRefusal | undefined,
      stallWhen: StreamFaultPoint | undefined,
    ) => {
      if (name === 'fail') faults.failStatus = clampStatus(Number(value));
      if (name === 'retry-after') faults.retryAfterSeconds = Number(value);
      if (name === 'delay') faults.delayMs = Math.min(Number(value), MAX_DELAY_MS);
      if (name === 'slow') faults.slowMs = Math.min(Number(value), MAX_DELAY_MS);
      if (name !== undefined && name in PART_MARKERS) parts[PART_MARKERS[name]] = Number(value);
      if (flag === 'filter') faults.filter = true;
      if (flag === 'drop') faults.drop = true;
      if (flag === 'use-tool') faults.useTool = true;
      if (flag === 'redacted-thinking') faults.redactedThinking = true;
      if (errorWhen && errorClass) faults.errorEvent = { when: errorWhen, errorClass };
      if (malformedWhen) faults.malformed = malformedWhen;
      if (refusal) faults.refusal = refusal;
      if (stallWhen) faults.stall = stallWhen;
      return ' ';
    },
  );
  return { text: stripped, faults, parts };
}

function clampStatus(status: number): number {
  return status >= 100 && status <= 599 ? status : 500;
}

export function answer(conversation: MockConversation): MockAnswer {
  const { text, faults, parts } = extractFaults(conversation.lastUserText);
  const promptTokens = conversation.texts.reduce((sum, t) => sum + words(t).length + 4, 0);
  if (faults.filter) {
    return {
      words: [],
      finish: 'content_filter',
      toolName: null,
      stopSequence: null,
      promptTokens,
      completionTokens: 0,
      faults,
      parts,
    };
  }
  const tool = conversation.forcedTool ?? (faults.useTool ? (conversation.firstTool ?? null) : null);
  if (tool) {
    const toolWords = words(text);
    return {
      words: toolWords,
      finish: 'tool_calls',
      toolName: tool,
      stopSequence: null,
      promptTokens,
      completionTokens: toolWords.length,
      faults,
      parts,
    };
  }
  const stopped = cutAtStop(words(text).join(' '), conversation.stop);
  let answerWords = words(stopped.text);
  let finish: MockFinish = 'stop';
  let stopSequence = stopped.sequence;
  if (conversation.maxTokens !== null && answerWords.length > conversation.maxTokens) {
    answerWords = answerWords.slice(0, conversation.maxTokens);
    finish = 'length';
    stopSequence = null;
  }
  return {
    words: answerWords,
    finish,
    toolName: null,
    stopSequence,
    promptTokens,
    completionTokens: answerWords.length,
    faults,
    parts,
  };
}

/** The text before the earliest occurrence of any stop sequence, and which one it was. */
export function cutAtStop(text: string, stop: string[]): { text: string; sequence: string | null } {
  let cut: { at: number; sequence: string } | null = null;
  for (const sequence of stop) {
    const at = sequence === '' ? -1 : text.indexOf(sequence);
    if (at !== -1 && (cut === null || at < cut.at)) cut = { at, sequence };
  }
  return cut ? { text: text.slice(0, cut.at), sequence: cut.sequence } : { text, sequence: null };
}

/** `stop` as either wire sends it: one string or a list of them; anything else is no stop sequence. */
export function stopSequences(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  return Array.isArray(value)
    ? value.filter((sequence): sequence is string => typeof sequence === 'string')
    : [];
}

/** The text of a message content in either wire format: a string, or an array of parts. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part: unknown) => {
      const p = part as { type?: unknown; text?: unknown; content?: unknown };
      if (typeof p?.text === 'string') return p.text;
      if (p?.type === 'tool_result') return contentText(p.content);
      return '';
    })
    .filter((t) => t.length > 0)
    .join(' ');
}

export function toolArguments(answerWords: string[]): string {
  return JSON.stringify({ text: answerWords.join(' ') });
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The status a provider answers a plain call with when its stream would carry an error event of this class. */
export const ERROR_CLASS_STATUS: Record<MockErrorClass, number> = {
  overloaded: 503,
  rate_limit: 429,
  server: 500,
};

/** The line a proxy that mangles a stream leaves behind. */
export const MALFORMED_LINE = 'data: {not json\n\n';

/** What each provider says when it refuses a request, in its documented words. */
export const REFUSALS: Record<MockRefusal, { openai: string; anthropic: string }> = {
  context_length: {
    openai:
      "This model's maximum context length is 128000 tokens. However, your messages resulted in 210000 tokens. Please reduce the length of the messages.",
    anthropic: 'prompt is too long: 210000 tokens > 200000 maximum',
  },
  invalid: {
    openai: "Invalid 'temperature': decimal above maximum value. Expected a value <= 2, but got 3 instead.",
    anthropic: 'temperature: Input should be less than or equal to 1',
  },
};
