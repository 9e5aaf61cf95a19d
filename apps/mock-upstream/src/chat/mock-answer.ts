/**
 * The deterministic behaviour of every mock provider, independent of the wire format.
 *
 * Token rule (documented for tests and the demo):
 * - a message's text is its string content, or its text parts joined by a space;
 * - prompt tokens = whitespace-separated words of every message text (the system prompt counts as
 *   a message) + 4 per message;
 * - the answer is the last user text with the markers removed and whitespace collapsed to single
 *   spaces; completion tokens = its words;
 * - `max_tokens` keeps the first that many words (finish `length`).
 *
 * Markers in the last user text: `[[fail:NNN]]` answers status NNN, `[[delay:MS]]` waits before
 * the first byte, `[[slow:MS]]` waits between two content chunks of a stream, `[[filter]]` blocks the answer (`content_filter`, empty content), `[[drop]]`
 * cuts the connection (after the first content chunk of a stream, at once for a plain call).
 */
export interface MockFaults {
  failStatus: number | null;
  delayMs: number;
  /** Pause between two streamed content chunks, so a test can act in the middle of a stream. */
  slowMs: number;
  filter: boolean;
  drop: boolean;
}

export type MockFinish = 'stop' | 'length' | 'tool_calls' | 'content_filter';

export interface MockAnswer {
  /** The words of the answer; the content is these joined by single spaces. */
  words: string[];
  finish: MockFinish;
  /** Set when the answer is a call of this tool, with the answer text as its argument. */
  toolName: string | null;
  promptTokens: number;
  completionTokens: number;
  faults: MockFaults;
}

export interface MockConversation {
  /** Every message text, the system prompt included. */
  texts: string[];
  lastUserText: string;
  maxTokens: number | null;
  /** The tool the model is forced to call, if any. */
  forcedTool: string | null;
}

const MAX_DELAY_MS = 600_000;
const MARKER = /\[\[(fail|delay|slow):(\d+)\]\]|\[\[(filter|drop)\]\]/g;

export function words(text: string): string[] {
  return text.split(/\s+/).filter((word) => word.length > 0);
}

export function extractFaults(text: string): { text: string; faults: MockFaults } {
  const faults: MockFaults = { failStatus: null, delayMs: 0, slowMs: 0, filter: false, drop: false };
  const stripped = text.replace(MARKER, (_match, name: string | undefined, value: string | undefined, flag: string | undefined) => {
    if (name === 'fail') faults.failStatus = clampStatus(Number(value));
    if (name === 'delay') faults.delayMs = Math.min(Number(value), MAX_DELAY_MS);
    if (name === 'slow') faults.slowMs = Math.min(Number(value), MAX_DELAY_MS);
    if (flag === 'filter') faults.filter = true;
    if (flag === 'drop') faults.drop = true;
    return ' ';
  });
  return { text: stripped, faults };
}

function clampStatus(status: number): number {
  return status >= 100 && status <= 599 ? status : 500;
}

export function answer(conversation: MockConversation): MockAnswer {
  const { text, faults } = extractFaults(conversation.lastUserText);
  const promptTokens = conversation.texts.reduce((sum, t) => sum + words(t).length + 4, 0);
  if (faults.filter) {
    return { words: [], finish: 'content_filter', toolName: null, promptTokens, completionTokens: 0, faults };
  }
  let answerWords = words(text);
  if (conversation.forcedTool) {
    return {
      words: answerWords,
      finish: 'tool_calls',
      toolName: conversation.forcedTool,
      promptTokens,
      completionTokens: answerWords.length,
      faults,
    };
  }
  let finish: MockFinish = 'stop';
  if (conversation.maxTokens !== null && answerWords.length > conversation.maxTokens) {
    answerWords = answerWords.slice(0, conversation.maxTokens);
    finish = 'length';
  }
  return { words: answerWords, finish, toolName: null, promptTokens, completionTokens: answerWords.length, faults };
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
