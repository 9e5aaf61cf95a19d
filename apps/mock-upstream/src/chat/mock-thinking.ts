import { createHmac, timingSafeEqual } from 'node:crypto';
import { type MockAnswer, words } from './mock-answer';

/**
 * Thinking, as the mocks produce it when a request asks for reasoning (Beta: `thinking` enabled;
 * Alpha: `reasoning_effort` or OpenRouter's `reasoning`): one block whose text names the answer,
 * signed so that only an unchanged block verifies, as Anthropic signs its thinking. Its words are
 * reasoning tokens: Alpha reports them in completion_tokens_details.reasoning_tokens, Beta in
 * output_tokens, as Anthropic does. `[[redacted-thinking]]` in the last user text answers a
 * redacted_thinking block (encrypted data only) in its place.
 *
 * Like Anthropic with thinking enabled, both refuse a continuation (the conversation ends with the
 * results of an assistant turn's tool calls) whose assistant turn does not begin with that
 * turn's thinking, unchanged: Beta reads the turn's first block, Alpha the turn's
 * `reasoning_details`, as OpenRouter forwards them to Anthropic.
 */
const SIGNING_KEY = 'mock-upstream thinking';

export interface MockThinking {
  text: string;
  signature: string;
  /** Set when the thinking is answered redacted: the data that stands for it. */
  redactedData: string | null;
  tokens: number;
}

function sign(text: string): string {
  return createHmac('sha256', SIGNING_KEY).update(text).digest('base64');
}

export function thinkingFor(reply: MockAnswer, redacted: boolean): MockThinking {
  const text = `The answer is ${reply.words.length} words: ${reply.words.join(' ')}`.trim();
  const payload = Buffer.from(text).toString('base64');
  return {
    text,
    signature: sign(text),
    redactedData: redacted ? `${payload}.${sign(payload)}` : null,
    tokens: words(text).length,
  };
}

function verified(value: string, signature: unknown): boolean {
  if (typeof signature !== 'string') return false;
  const expected = Buffer.from(sign(value));
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/** Whether a thinking block (its text and signature) or a redacted one (its data) is one the mocks issued, unchanged. */
export function isIssuedThinking(block: {
  thinking?: unknown;
  signature?: unknown;
  data?: unknown;
}): boolean {
  if (typeof block.data === 'string') {
    const [payload, signature] = block.data.split('.');
    return payload !== undefined && verified(payload, signature);
  }
  return typeof block.thinking === 'string' && verified(block.thinking, block.signature);
}

const DOCS = 'https://docs.claude.com/en/docs/build-with-claude/extended-thinking';

/** Anthropic's refusal of a continuation whose assistant turn `at` starts with `found` instead of its thinking. */
export function missingThinkingMessage(at: number, found: string): string {
  return (
    `messages.${at}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${found}\`. ` +
    'When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the ' +
    'lastmost set of `tool_use` and `tool_result` blocks). We recommend you include thinking blocks from ' +
    `previous turns. To avoid this requirement, disable \`thinking\`. Please consult our documentation at ${DOCS}`
  );
}

/** Anthropic's refusal of a thinking block whose signature does not verify its text. */
export function invalidSignatureMessage(at: number): string {
  return `messages.${at}.content.0: Invalid \`signature\` in \`thinking\` block`;
}
