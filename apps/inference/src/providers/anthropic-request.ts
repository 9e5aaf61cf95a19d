import { ANTHROPIC_REASONING_FORMAT, type ReasoningDetail } from '@gw/contracts';
import type { ChatMessageDto } from '@gw/dto';
import type { UpstreamChatRequest } from './upstream-chat';

const nonEmpty = (value: unknown): value is string => typeof value === 'string' && value !== '';

type AnthropicBlock =
  | { type: 'text'; text: string }
  | {
      type: 'image';
      source: { type: 'url'; url: string } | { type: 'base64'; media_type: string; data: string };
    }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'redacted_thinking'; data: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  | { type: 'tool_result'; tool_use_id: string; content: string };

interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: AnthropicBlock[];
}

/** The Anthropic messages request for a request in the gateway's chat shape. */
export function toAnthropicRequest(request: UpstreamChatRequest): Record<string, unknown> {
  const system = request.messages
    .filter((m) => m.role === 'system' || m.role === 'developer')
    .map((m) => textOf(m.content))
    .join('\n\n');
  const messages: AnthropicMessage[] = [];
  for (const message of request.messages) {
    if (message.role === 'system' || message.role === 'developer') continue;
    const role = message.role === 'assistant' ? 'assistant' : 'user';
    const blocks = toBlocks(message);
    const last = messages.at(-1);
    if (last && last.role === role) last.content.push(...blocks);
    else messages.push({ role, content: blocks });
  }
  // The Anthropic wire refuses a request without turns, which OpenAI serves: the instructions become the one user turn.
  const instructionsOnly = messages.length === 0 && system !== '';
  return {
    model: request.model,
    max_tokens: request.max_tokens,
    messages: instructionsOnly ? [{ role: 'user', content: [{ type: 'text', text: system }] }] : messages,
    ...(system && !instructionsOnly ? { system } : {}),
    ...(request.temperature !== undefined ? { temperature: Math.min(request.temperature, 1) } : {}),
    ...(request.top_p !== undefined ? { top_p: request.top_p } : {}),
    ...(request.tools?.length
      ? {
          tools: request.tools.map((tool) => ({
            name: tool.function.name,
            ...(tool.function.description ? { description: tool.function.description } : {}),
            input_schema: tool.function.parameters ?? { type: 'object', properties: {} },
          })),
        }
      : {}),
    ...(request.tools?.length && request.tool_choice ? { tool_choice: toolChoice(request.tool_choice) } : {}),
    ...(request.user ? { metadata: { user_id: request.user } } : {}),
    ...(request.stop?.length ? { stop_sequences: request.stop } : {}),
    ...thinkingSetting(request),
  };
}

/** OpenRouter's budget for an effort on a model that takes a budget: this share of the answer's max_tokens. */
const EFFORT_BUDGET_SHARE: Record<string, number> = {
  max: 0.95,
  xhigh: 0.95,
  high: 0.8,
  medium: 0.5,
  low: 0.2,
  minimal: 0.1,
};
/** Anthropic's least thinking budget, and the most OpenRouter derives from an effort. */
const MIN_THINKING_BUDGET = 1024;
const MAX_EFFORT_BUDGET = 128_000;

/**
 * Anthropic's `thinking` from the reasoning settings: a budget as given (Messages' budget_tokens,
 * chat's reasoning.max_tokens) is sent as it is, for Anthropic to judge; one derived from an effort
 * as OpenRouter derives it, and only when it fits below max_tokens, which Anthropic requires.
 */
function thinkingSetting(request: UpstreamChatRequest): { thinking?: Record<string, unknown> } {
  const reasoning = request.reasoning;
  if (!reasoning) return {};
  if (reasoning.enabled === false || reasoning.effort === 'none') return { thinking: { type: 'disabled' } };
  if (reasoning.max_tokens !== undefined)
    return { thinking: { type: 'enabled', budget_tokens: reasoning.max_tokens } };
  const share = EFFORT_BUDGET_SHARE[reasoning.effort ?? ''];
  if (share === undefined && reasoning.enabled !== true) return {};
  const budget =
    share === undefined
      ? MIN_THINKING_BUDGET
      : Math.max(Math.min(Math.floor(request.max_tokens * share), MAX_EFFORT_BUDGET), MIN_THINKING_BUDGET);
  return budget < request.max_tokens ? { thinking: { type: 'enabled', budget_tokens: budget } } : {};
}

function toolChoice(choice: NonNullable<UpstreamChatRequest['tool_choice']>): Record<string, unknown> {
  if (choice === 'required') return { type: 'any' };
  if (choice === 'none') return { type: 'none' };
  if (choice === 'auto') return { type: 'auto' };
  return { type: 'tool', name: choice.function.name };
}

/**
 * The reasoning items Anthropic can take back, as the thinking blocks they were: signed thinking
 * and redacted thinking of Anthropic's format (or of none named). Anthropic refuses thinking it
 * cannot verify, so unsigned text, summaries and other providers' encrypted reasoning are left out.
 */
export function thinkingBlocks(details: ReasoningDetail[] | undefined): AnthropicBlock[] {
  return (details ?? []).flatMap((detail): AnthropicBlock[] => {
    if (detail.format !== undefined && detail.format !== ANTHROPIC_REASONING_FORMAT) return [];
    if (detail.type === 'reasoning.text' && nonEmpty(detail.signature))
      return [{ type: 'thinking', thinking: detail.text ?? '', signature: detail.signature }];
    if (detail.type === 'reasoning.encrypted' && nonEmpty(detail.data))
      return [{ type: 'redacted_thinking', data: detail.data }];
    return [];
  });
}

function toBlocks(message: ChatMessageDto): AnthropicBlock[] {
  if (message.role === 'tool')
    return [
      { type: 'tool_result', tool_use_id: message.tool_call_id ?? '', content: textOf(message.content) },
    ];
  // Anthropic wants an assistant turn's thinking before its text and tool calls.
  const blocks: AnthropicBlock[] =
    message.role === 'assistant' ? thinkingBlocks(message.reasoning_details) : [];
  if (typeof message.content === 'string') {
    if (message.content !== '') blocks.push({ type: 'text', text: message.content });
  } else if (Array.isArray(message.content)) {
    for (const part of message.content) {
      if (part.type === 'text' && 'text' in part) blocks.push({ type: 'text', text: part.text });
      if (part.type === 'image_url' && 'image_url' in part)
        blocks.push({ type: 'image', source: imageSource(part.image_url.url) });
    }
  }
  for (const call of message.tool_calls ?? []) {
    blocks.push({
      type: 'tool_use',
      id: call.id,
      name: call.function.name,
      input: parseArguments(call.function.arguments),
    });
  }
  return blocks.length > 0 ? blocks : [{ type: 'text', text: '' }];
}

function imageSource(url: string): Extract<AnthropicBlock, { type: 'image' }>['source'] {
  const data = /^data:([^;]+);base64,(.*)$/s.exec(url);
  return data ? { type: 'base64', media_type: data[1], data: data[2] } : { type: 'url', url };
}

function parseArguments(args: string): unknown {
  try {
    return JSON.parse(args);
  } catch {
    return {};
  }
}

function textOf(content: ChatMessageDto['content']): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) => (part.type === 'text' && 'text' in part ? part.text : ''))
    .filter((t) => t !== '')
    .join('\n');
}
