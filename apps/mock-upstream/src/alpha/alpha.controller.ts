import { Body, Controller, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import {
  answer,
  contentText,
  ERROR_CLASS_STATUS,
  MALFORMED_LINE,
  MockAnswer,
  type MockErrorClass,
  REFUSALS,
  sleep,
  stopSequences,
  type StreamFaultPoint,
  toolArguments,
  words,
} from '../chat/mock-answer';
import {
  invalidSignatureMessage,
  isIssuedThinking,
  missingThinkingMessage,
  type MockThinking,
  thinkingFor,
} from '../chat/mock-thinking';
import { cut, hasCredentials, stall } from '../chat/upstream-credentials';

interface OpenAiChatRequest {
  model?: unknown;
  messages?: Array<{ role?: unknown; content?: unknown; tool_calls?: unknown; reasoning_details?: unknown }>;
  max_tokens?: unknown;
  max_completion_tokens?: unknown;
  stream?: unknown;
  stream_options?: { include_usage?: unknown };
  tools?: Array<{ function?: { name?: unknown } }>;
  tool_choice?: unknown;
  stop?: unknown;
  reasoning_effort?: unknown;
  reasoning?: { effort?: unknown; max_tokens?: unknown; enabled?: unknown };
}

let sequence = 0;

/** `Mock Alpha`: the OpenAI chat-completions wire. */
@ApiExcludeController()
@Controller('alpha/v1')
export class AlphaController {
  @Post('chat/completions')
  async chat(@Req() request: Request, @Body() body: OpenAiChatRequest, @Res() res: Response): Promise<void> {
    if (!hasCredentials(request)) return openAiError(res, 401, 'invalid_api_key', 'Missing API key');
    const messages = Array.isArray(body?.messages) ? body.messages : null;
    if (!messages || messages.length === 0 || typeof body.model !== 'string') {
      return openAiError(res, 400, 'invalid_request_error', 'model and messages are required');
    }
    const thinkingOn = asksForReasoning(body);
    const refusal = thinkingOn ? continuationRefusal(messages) : null;
    if (refusal) return openAiError(res, 400, 'invalid_request_error', refusal);
    const lastUser = [...messages].reverse().find((m) => m.role === 'user');
    const reply = answer({
      texts: messages.map((m) => contentText(m.content)),
      lastUserText: contentText(lastUser?.content),
      maxTokens: positiveInt(body.max_completion_tokens) ?? positiveInt(body.max_tokens),
      forcedTool: forcedTool(body),
      firstTool: typeof body.tools?.[0]?.function?.name === 'string' ? body.tools[0].function.name : null,
      stop: stopSequences(body.stop),
    });
    const thinking = thinkingOn ? thinkingFor(reply, reply.faults.redactedThinking) : null;
    await sleep(reply.faults.delayMs);
    if (reply.faults.retryAfterSeconds !== null)
      res.setHeader('retry-after', String(reply.faults.retryAfterSeconds));
    if (reply.faults.failStatus !== null) {
      return openAiError(
        res,
        reply.faults.failStatus,
        'upstream_failure',
        `Injected failure ${reply.faults.failStatus}`,
      );
    }
    if (reply.faults.refusal !== null) {
      const refusal = reply.faults.refusal;
      res.status(400).json({
        error: {
          message: REFUSALS[refusal].openai,
          type: 'invalid_request_error',
          param: refusal === 'context_length' ? 'messages' : 'temperature',
          code: refusal === 'context_length' ? 'context_length_exceeded' : 'decimal_above_max_value',
        },
      });
      return;
    }
    const id = `chatcmpl-mock-${++sequence}`;
    const created = Math.floor(Date.now() / 1000);
    if (body.stream === true)
      return streamAnswer(
        res,
        reply,
        thinking,
        { id, created, model: body.model },
        body.stream_options?.include_usage === true,
      );
    if (reply.faults.drop) {
      res.socket?.destroy();
      return;
    }
    if (reply.faults.stall !== null) return stall(res.status(200).type('application/json'));
    const { errorEvent, malformed } = reply.faults;
    if (errorEvent) {
      const { error } = OPENAI_ERRORS[errorEvent.errorClass];
      return openAiError(
        res,
        ERROR_CLASS_STATUS[errorEvent.errorClass],
        error.type,
        error.message,
        error.code,
      );
    }
    if (malformed) {
      res.status(200).type('application/json').send('{not json');
      return;
    }
    res.status(200).json({
      id,
      object: 'chat.completion',
      created,
      model: body.model,
      choices: [
        {
          index: 0,
          message: { ...message(reply, id), ...reasoningFields(thinking) },
          finish_reason: reply.finish,
          logprobs: null,
        },
      ],
      usage: usage(reply, thinking),
    });
  }
}

function forcedTool(body: OpenAiChatRequest): string | null {
  const tools = Array.isArray(body.tools) ? body.tools : [];
  const first = tools[0]?.function?.name;
  if (body.tool_choice === 'required' && typeof first === 'string') return first;
  const named = (body.tool_choice as { function?: { name?: unknown } } | undefined)?.function?.name;
  return typeof named === 'string' ? named : null;
}

/** OpenAI's effort, or OpenRouter's reasoning settings, short of turning reasoning off. */
function asksForReasoning(body: OpenAiChatRequest): boolean {
  const reasoning = body.reasoning;
  if (typeof body.reasoning_effort === 'string') return body.reasoning_effort !== 'none';
  if (typeof reasoning !== 'object' || reasoning === null || reasoning.enabled === false) return false;
  return (
    reasoning.enabled === true ||
    reasoning.max_tokens !== undefined ||
    (typeof reasoning.effort === 'string' && reasoning.effort !== 'none')
  );
}

/**
 * OpenRouter forwards an assistant's reasoning_details to Anthropic as its thinking blocks: a
 * continuation after tool results is refused, in Anthropic's words, unless the turn that called
 * the tools carries its thinking unchanged.
 */
function continuationRefusal(messages: NonNullable<OpenAiChatRequest['messages']>): string | null {
  if (messages.at(-1)?.role !== 'tool') return null;
  const at = messages.findLastIndex((message) => message.role === 'assistant');
  if (at === -1) return null;
  const details = messages[at].reasoning_details;
  const first = (Array.isArray(details) ? details[0] : undefined) as Record<string, unknown> | undefined;
  if (first?.type !== 'reasoning.text' && first?.type !== 'reasoning.encrypted')
    return missingThinkingMessage(at, Array.isArray(messages[at].tool_calls) ? 'tool_use' : 'text');
  const block =
    first.type === 'reasoning.text' ? { thinking: first.text, signature: first.signature } : first;
  return isIssuedThinking(block) ? null : invalidSignatureMessage(at);
}

/** The reasoning as OpenRouter returns Anthropic's thinking: its text, and the item that Anthropic takes back. */
function reasoningFields(thinking: MockThinking | null): Record<string, unknown> {
  if (!thinking) return {};
  if (thinking.redactedData !== null)
    return {
      reasoning: null,
      reasoning_details: [
        { type: 'reasoning.encrypted', data: thinking.redactedData, format: 'anthropic-claude-v1', index: 0 },
      ],
    };
  return {
    reasoning: thinking.text,
    reasoning_details: [
      {
        type: 'reasoning.text',
        text: thinking.text,
        signature: thinking.signature,
        format: 'anthropic-claude-v1',
        index: 0,
      },
    ],
  };
}

function positiveInt(value: unknown): number | null {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : null;
}

function message(reply: MockAnswer, id: string): Record<string, unknown> {
  if (reply.toolName === null) return { role: 'assistant', content: reply.words.join(' '), refusal: null };
  return {
    role: 'assistant',
    content: null,
    tool_calls: [
      {
        id: `call_${id}`,
        type: 'function',
        function: { name: reply.toolName, arguments: toolArguments(reply.words) },
      },
    ],
  };
}

/** OpenAI's usage object, with OpenRouter's cache_write_tokens and image_tokens; the parts are counted in their wholes. */
function usage(reply: MockAnswer, thinking: MockThinking | null): Record<string, unknown> {
  const parts = reply.parts;
  const prompt =
    reply.promptTokens +
    parts.cacheRead +
    parts.cacheWrite +
    parts.cacheWrite1h +
    parts.audioIn +
    parts.imageIn;
  const reasoning = parts.reasoning + (thinking?.tokens ?? 0);
  const completion = reply.completionTokens + reasoning + parts.audioOut;
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: {
      cached_tokens: parts.cacheRead,
      cache_write_tokens: parts.cacheWrite + parts.cacheWrite1h,
      audio_tokens: parts.audioIn,
      image_tokens: parts.imageIn,
    },
    completion_tokens_details: { reasoning_tokens: reasoning, audio_tokens: parts.audioOut },
    ...(parts.webSearches > 0 ? { server_tool_use: { web_search_requests: parts.webSearches } } : {}),
  };
}

async function streamAnswer(
  res: Response,
  reply: MockAnswer,
  thinking: MockThinking | null,
  head: { id: string; created: number; model: string },
  includeUsage: boolean,
): Promise<void> {
  res.status(200);
  res.setHeader('content-type', 'text/event-stream');
  res.setHeader('cache-control', 'no-cache');
  res.flushHeaders();
  const send = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    res.write(`data: ${JSON.stringify({ ...head, object: 'chat.completion.chunk', choices, ...extra })}\n\n`);
  const delta = (d: Record<string, unknown>, finish: string | null = null) =>
    send([{ index: 0, delta: d, finish_reason: finish, logprobs: null }]);

  const { errorEvent, malformed } = reply.faults;
  /** Writes the stream's injected fault due at this point; true when the stream ends there. */
  const fault = (point: StreamFaultPoint): boolean => {
    if (malformed === point) res.write(MALFORMED_LINE);
    if (errorEvent?.when !== point) return false;
    res.end(`data: ${JSON.stringify(OPENAI_ERRORS[errorEvent.errorClass])}\n\n`);
    return true;
  };

  delta({ role: 'assistant', content: reply.toolName === null ? '' : null });
  if (fault('first')) return;
  if (reply.faults.stall === 'first') return stall(res);
  if (thinking?.redactedData) delta(reasoningFields(thinking));
  else if (thinking) {
    const format = 'anthropic-claude-v1';
    for (const [index, word] of words(thinking.text).entries()) {
      const text = index === 0 ? word : ` ${word}`;
      delta({ reasoning: text, reasoning_details: [{ type: 'reasoning.text', text, format, index: 0 }] });
    }
    delta({
      reasoning_details: [{ type: 'reasoning.text', signature: thinking.signature, format, index: 0 }],
    });
  }
  if (reply.toolName !== null) {
    delta({
      tool_calls: [
        {
          index: 0,
          id: `call_${head.id}`,
          type: 'function',
          function: { name: reply.toolName, arguments: '' },
        },
      ],
    });
    delta({ tool_calls: [{ index: 0, function: { arguments: toolArguments(reply.words) } }] });
  } else {
    for (const [index, word] of reply.words.entries()) {
      if (index > 0 && reply.faults.slowMs > 0) await sleep(reply.faults.slowMs);
      if (res.destroyed) return;
      delta({ content: index === 0 ? word : ` ${word}` });
      if (reply.faults.drop) return cut(res);
      if (index === 0 && fault('mid')) return;
      if (index === 0 && reply.faults.stall === 'mid') return stall(res);
    }
  }
  if (reply.faults.drop) return cut(res);
  delta({}, reply.finish);
  if (includeUsage) send([], { usage: usage(reply, thinking) });
  res.end('data: [DONE]\n\n');
}

function openAiError(
  res: Response,
  status: number,
  type: string,
  messageText: string,
  code: string | null = null,
): void {
  res.status(status).json({ error: { message: messageText, type, code, param: null } });
}

/** OpenAI's error objects for each class, as its API sends them inside a stream and as a body. */
const OPENAI_ERRORS: Record<
  MockErrorClass,
  { error: { message: string; type: string; code: string | null } }
> = {
  overloaded: {
    error: {
      message: 'That model is currently overloaded with other requests. You can retry your request.',
      type: 'server_error',
      code: null,
    },
  },
  rate_limit: {
    error: { message: 'Rate limit reached for requests', type: 'requests', code: 'rate_limit_exceeded' },
  },
  server: {
    error: {
      message: 'The server had an error while processing your request. Sorry about that!',
      type: 'server_error',
      code: null,
    },
  },
};
