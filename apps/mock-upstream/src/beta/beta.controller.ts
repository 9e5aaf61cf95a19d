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
  MockFinish,
  sleep,
  stopSequences,
  type StreamFaultPoint,
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

interface AnthropicMessagesRequest {
  model?: unknown;
  system?: unknown;
  messages?: Array<{ role?: unknown; content?: unknown }>;
  max_tokens?: unknown;
  stream?: unknown;
  tools?: Array<{ name?: unknown }>;
  tool_choice?: { type?: unknown; name?: unknown };
  stop_sequences?: unknown;
  thinking?: { type?: unknown; budget_tokens?: unknown };
}

const STOP_REASONS: Record<MockFinish, string> = {
  stop: 'end_turn',
  length: 'max_tokens',
  tool_calls: 'tool_use',
  content_filter: 'refusal',
};

let sequence = 0;

/** `Mock Beta`: the Anthropic messages wire. */
@ApiExcludeController()
@Controller('beta/v1')
export class BetaController {
  @Post('messages')
  async messages(
    @Req() request: Request,
    @Body() body: AnthropicMessagesRequest,
    @Res() res: Response,
  ): Promise<void> {
    if (!hasCredentials(request)) return anthropicError(res, 401, 'authentication_error', 'Missing API key');
    const messages = Array.isArray(body?.messages) ? body.messages : null;
    if (!messages || messages.length === 0 || typeof body.model !== 'string') {
      return anthropicError(res, 400, 'invalid_request_error', 'model and messages are required');
    }
    if (typeof body.max_tokens !== 'number' || !Number.isInteger(body.max_tokens) || body.max_tokens < 1) {
      return anthropicError(res, 400, 'invalid_request_error', 'max_tokens: Field required');
    }
    const thinkingOn = body.thinking?.type === 'enabled';
    const refusal = thinkingOn ? continuationRefusal(messages) : null;
    if (refusal) return anthropicError(res, 400, 'invalid_request_error', refusal);
    const system = contentText(body.system);
    const lastUser = [...messages].reverse().find((m) => m.role === 'user');
    const reply = answer({
      texts: [...(system ? [system] : []), ...messages.map((m) => contentText(m.content))],
      lastUserText: userText(lastUser?.content),
      maxTokens: body.max_tokens,
      forcedTool: forcedTool(body),
      firstTool: typeof body.tools?.[0]?.name === 'string' ? body.tools[0].name : null,
      stop: stopSequences(body.stop_sequences),
    });
    const thinking = thinkingOn ? thinkingFor(reply, reply.faults.redactedThinking) : null;
    await sleep(reply.faults.delayMs);
    if (reply.faults.retryAfterSeconds !== null)
      res.setHeader('retry-after', String(reply.faults.retryAfterSeconds));
    if (reply.faults.failStatus !== null) {
      return anthropicError(
        res,
        reply.faults.failStatus,
        'api_error',
        `Injected failure ${reply.faults.failStatus}`,
      );
    }
    if (reply.faults.refusal !== null)
      return anthropicError(res, 400, 'invalid_request_error', REFUSALS[reply.faults.refusal].anthropic);
    const id = `msg_mock_${++sequence}`;
    if (body.stream === true) return streamMessage(res, reply, thinking, id, body.model);
    if (reply.faults.drop) {
      res.socket?.destroy();
      return;
    }
    if (reply.faults.stall !== null) return stall(res.status(200).type('application/json'));
    const { errorEvent, malformed } = reply.faults;
    if (errorEvent) {
      const { type, message } = ANTHROPIC_ERRORS[errorEvent.errorClass];
      return anthropicError(res, ANTHROPIC_ERROR_STATUS[errorEvent.errorClass], type, message);
    }
    if (malformed) {
      res.status(200).type('application/json').send('{not json');
      return;
    }
    res.status(200).json({
      id,
      type: 'message',
      role: 'assistant',
      model: body.model,
      content: [...thinkingBlocks(thinking), ...contentBlocks(reply, id)],
      ...stopFields(reply),
      usage: { ...inputUsage(reply), ...outputUsage(reply, thinking) },
    });
  }
}

/** Tool results are not what the user said: only the text blocks of the last user turn are echoed. */
function userText(content: unknown): string {
  if (!Array.isArray(content)) return contentText(content);
  return contentText(content.filter((part: { type?: unknown }) => part?.type === 'text'));
}

function forcedTool(body: AnthropicMessagesRequest): string | null {
  const first = Array.isArray(body.tools) ? body.tools[0]?.name : undefined;
  if (body.tool_choice?.type === 'any' && typeof first === 'string') return first;
  if (body.tool_choice?.type === 'tool' && typeof body.tool_choice.name === 'string')
    return body.tool_choice.name;
  return null;
}

/**
 * With thinking on, a conversation that ends with tool results continues the assistant turn that
 * called the tools: Anthropic refuses it unless that turn begins with its thinking, unchanged.
 */
function continuationRefusal(messages: Array<{ role?: unknown; content?: unknown }>): string | null {
  const last = messages.at(-1);
  const results =
    last?.role === 'user' &&
    Array.isArray(last.content) &&
    last.content.some((block: { type?: unknown }) => block?.type === 'tool_result');
  if (!results) return null;
  const at = messages.findLastIndex((message) => message.role === 'assistant');
  if (at === -1) return null;
  const content = messages[at].content;
  const first = (Array.isArray(content) ? content[0] : { type: 'text' }) as Record<string, unknown>;
  if (first?.type !== 'thinking' && first?.type !== 'redacted_thinking')
    return missingThinkingMessage(at, typeof first?.type === 'string' ? first.type : 'text');
  return isIssuedThinking(first) ? null : invalidSignatureMessage(at);
}

function thinkingBlocks(thinking: MockThinking | null): unknown[] {
  if (!thinking) return [];
  if (thinking.redactedData !== null) return [{ type: 'redacted_thinking', data: thinking.redactedData }];
  return [{ type: 'thinking', thinking: thinking.text, signature: thinking.signature }];
}

function contentBlocks(reply: MockAnswer, id: string): unknown[] {
  if (reply.toolName !== null)
    return [
      { type: 'tool_use', id: `toolu_${id}`, name: reply.toolName, input: { text: reply.words.join(' ') } },
    ];
  if (reply.finish === 'content_filter') return [];
  return [{ type: 'text', text: reply.words.join(' ') }];
}

async function streamMessage(
  res: Response,
  reply: MockAnswer,
  thinking: MockThinking | null,
  id: string,
  model: string,
): Promise<void> {
  res.status(200);
  res.setHeader('content-type', 'text/event-stream');
  res.setHeader('cache-control', 'no-cache');
  res.flushHeaders();
  const send = (event: string, data: Record<string, unknown>) =>
    res.write(`event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`);

  const { errorEvent, malformed } = reply.faults;
  /** Writes the stream's injected fault due at this point; true when the stream ends there. */
  const fault = (point: StreamFaultPoint): boolean => {
    if (malformed === point) res.write(MALFORMED_LINE);
    if (errorEvent?.when !== point) return false;
    res.end(
      `event: error\ndata: ${JSON.stringify({ type: 'error', error: ANTHROPIC_ERRORS[errorEvent.errorClass] })}\n\n`,
    );
    return true;
  };

  send('message_start', {
    message: {
      id,
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...inputUsage(reply), output_tokens: 0 },
    },
  });
  if (fault('first')) return;
  if (reply.faults.stall === 'first') return stall(res);
  // Thinking comes first, as Anthropic streams it: its text in deltas, then its signature.
  if (thinking?.redactedData) {
    send('content_block_start', {
      index: 0,
      content_block: { type: 'redacted_thinking', data: thinking.redactedData },
    });
    send('content_block_stop', { index: 0 });
  } else if (thinking) {
    send('content_block_start', {
      index: 0,
      content_block: { type: 'thinking', thinking: '', signature: '' },
    });
    for (const [index, word] of words(thinking.text).entries())
      send('content_block_delta', {
        index: 0,
        delta: { type: 'thinking_delta', thinking: index === 0 ? word : ` ${word}` },
      });
    send('content_block_delta', {
      index: 0,
      delta: { type: 'signature_delta', signature: thinking.signature },
    });
    send('content_block_stop', { index: 0 });
  }
  const block = thinking ? 1 : 0;
  if (reply.toolName !== null) {
    send('content_block_start', {
      index: block,
      content_block: { type: 'tool_use', id: `toolu_${id}`, name: reply.toolName, input: {} },
    });
    send('content_block_delta', {
      index: block,
      delta: { type: 'input_json_delta', partial_json: JSON.stringify({ text: reply.words.join(' ') }) },
    });
    send('content_block_stop', { index: block });
  } else if (reply.finish !== 'content_filter') {
    send('content_block_start', { index: block, content_block: { type: 'text', text: '' } });
    for (const [index, word] of reply.words.entries()) {
      if (index > 0 && reply.faults.slowMs > 0) await sleep(reply.faults.slowMs);
      if (res.destroyed) return;
      send('content_block_delta', {
        index: block,
        delta: { type: 'text_delta', text: index === 0 ? word : ` ${word}` },
      });
      if (reply.faults.drop) return cut(res);
      if (index === 0 && fault('mid')) return;
      if (index === 0 && reply.faults.stall === 'mid') return stall(res);
    }
    send('content_block_stop', { index: block });
  }
  if (reply.faults.drop) return cut(res);
  send('message_delta', { delta: stopFields(reply), usage: outputUsage(reply, thinking) });
  send('message_stop', {});
  res.end();
}

/** Anthropic's input usage: what was read from or written to the cache is not in input_tokens. */
function inputUsage(reply: MockAnswer): Record<string, unknown> {
  const parts = reply.parts;
  const written = parts.cacheWrite + parts.cacheWrite1h;
  return {
    input_tokens: reply.promptTokens + parts.audioIn + parts.imageIn,
    ...(parts.cacheRead > 0 ? { cache_read_input_tokens: parts.cacheRead } : {}),
    ...(written > 0
      ? {
          cache_creation_input_tokens: written,
          cache_creation: {
            ephemeral_5m_input_tokens: parts.cacheWrite,
            ephemeral_1h_input_tokens: parts.cacheWrite1h,
          },
        }
      : {}),
  };
}

/** Anthropic counts reasoning (thinking) as output; the searches it ran are in server_tool_use, told with the output. */
function outputUsage(reply: MockAnswer, thinking: MockThinking | null): Record<string, unknown> {
  const parts = reply.parts;
  return {
    output_tokens: reply.completionTokens + parts.reasoning + parts.audioOut + (thinking?.tokens ?? 0),
    ...(parts.webSearches > 0 ? { server_tool_use: { web_search_requests: parts.webSearches } } : {}),
  };
}

/** Anthropic names the stop sequence that ended an answer; a natural end is end_turn. */
function stopFields(reply: MockAnswer): { stop_reason: string; stop_sequence: string | null } {
  if (reply.stopSequence !== null) return { stop_reason: 'stop_sequence', stop_sequence: reply.stopSequence };
  return { stop_reason: STOP_REASONS[reply.finish], stop_sequence: null };
}

/** Anthropic's error types for each class, as its API names them in an error event and a body. */
const ANTHROPIC_ERRORS: Record<MockErrorClass, { type: string; message: string }> = {
  overloaded: { type: 'overloaded_error', message: 'Overloaded' },
  rate_limit: {
    type: 'rate_limit_error',
    message: 'Number of request tokens has exceeded your per-minute rate limit',
  },
  server: { type: 'api_error', message: 'Internal server error' },
};

/** Anthropic answers an overload with its own 529. */
const ANTHROPIC_ERROR_STATUS: Record<MockErrorClass, number> = { ...ERROR_CLASS_STATUS, overloaded: 529 };

function anthropicError(res: Response, status: number, type: string, message: string): void {
  res.status(status).json({ type: 'error', error: { type, message } });
}
