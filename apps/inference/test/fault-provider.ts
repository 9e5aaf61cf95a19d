import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Wire = 'openai' | 'anthropic';

/**
 * What a provider, or a proxy in front of it, does to one answer. Each is what providers document
 * or were seen to send: error events inside a stream that began with 200, mangled lines, a cut
 * stream, error statuses, an HTML page, silence before the headers or in the middle of the body.
 */
export const WIRE_FAULTS = [
  'error-event-first-overloaded',
  'error-event-first-rate-limit',
  'error-event-first-server',
  'error-event-mid',
  'malformed-first',
  'malformed-mid',
  'truncated',
  'http-429',
  'http-400-context-length',
  'http-400-invalid',
  'http-401',
  'http-500',
  'http-529',
  'html',
  'no-headers',
  'stall-first',
  'stall-mid',
] as const;
export type WireFault = (typeof WIRE_FAULTS)[number];

/** What each wire says when a prompt is longer than its model takes (the providers' documented texts). */
export const CONTEXT_LENGTH_REFUSALS: Record<Wire, string> = {
  openai: "This model's maximum context length is 128000 tokens.",
  anthropic: 'prompt is too long: 210000 tokens > 200000 maximum',
};

/** A parameter the provider refuses, in its words. */
export const INVALID_REQUEST_REFUSAL = 'temperature: Input should be less than or equal to 2';

/** The provider's words when it refuses the gateway's key: never for the client's eyes. */
export const KEY_REFUSAL = 'Incorrect API key provided: sk-prov***';

/** The provider's Retry-After on its 429. */
export const PROVIDER_RETRY_AFTER_SECONDS = 7;

/** The one word every faulty answer outputs before a fault that comes after output. */
export const FIRST_WORD = 'one';

type Frame = string;

/** The frames of each wire: its start, a piece of text, its end, and its error event of a class. */
const FRAMES: Record<
  Wire,
  {
    start: Frame[];
    text: (word: string) => Frame;
    end: Frame[];
    error: (type: string, message: string) => Frame;
  }
> = {
  openai: {
    start: [
      openAi({ choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] }),
    ],
    text: (word) => openAi({ choices: [{ index: 0, delta: { content: word }, finish_reason: null }] }),
    end: [
      openAi({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }),
      openAi({ choices: [], usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 } }),
      'data: [DONE]\n\n',
    ],
    error: (type, message) =>
      `data: ${JSON.stringify({ error: { message, type: type === 'rate_limit_error' ? 'requests' : 'server_error', code: type === 'rate_limit_error' ? 'rate_limit_exceeded' : null } })}\n\n`,
  },
  anthropic: {
    start: [
      anthropic('message_start', {
        message: {
          id: 'msg_1',
          type: 'message',
          role: 'assistant',
          content: [],
          usage: { input_tokens: 5, output_tokens: 0 },
        },
      }),
      anthropic('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
    ],
    text: (word) => anthropic('content_block_delta', { index: 0, delta: { type: 'text_delta', text: word } }),
    end: [
      anthropic('content_block_stop', { index: 0 }),
      anthropic('message_delta', { delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 1 } }),
      anthropic('message_stop', {}),
    ],
    error: (type, message) => anthropic('error', { error: { type, message } }),
  },
};

function openAi(chunk: Record<string, unknown>): Frame {
  return `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', ...chunk })}\n\n`;
}

function anthropic(event: string, data: Record<string, unknown>): Frame {
  return `event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`;
}

const OVERLOADED = ['overloaded_error', 'Overloaded'] as const;
const MALFORMED: Frame = 'data: {not json\n\n';

/**
 * A provider speaking both wires on a free port (`/openai/v1/chat/completions`,
 * `/anthropic/v1/messages`) that answers each request with the fault named in its body
 * (`fault:<name>`), or a whole one-word answer when none is named. `stalled` holds the answers
 * that never end, closed when the server stops.
 */
export class FaultProvider {
  private readonly server: Server;
  private readonly stalled = new Set<ServerResponse>();
  url = '';

  constructor() {
    this.server = createServer((request, response) => void this.answer(request, response));
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    for (const response of this.stalled) response.destroy();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private async answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
    let body = '';
    for await (const chunk of request) body += chunk;
    const wire: Wire = request.url?.startsWith('/anthropic') ? 'anthropic' : 'openai';
    const fault = /fault:([a-z0-9-]+)/.exec(body)?.[1] as WireFault | undefined;
    const plan = answerOf(fault, wire);
    if (plan.kind === 'silent') {
      this.stalled.add(response);
      return;
    }
    if (plan.kind === 'status') {
      response.writeHead(plan.status, { 'content-type': plan.contentType, ...plan.headers });
      response.end(plan.body);
      return;
    }
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const frame of plan.frames) response.write(frame);
    if (plan.stalls) this.stalled.add(response);
    else response.end();
  }
}

type Answer =
  | { kind: 'silent' }
  | { kind: 'status'; status: number; contentType: string; headers: Record<string, string>; body: string }
  | { kind: 'stream'; frames: Frame[]; stalls: boolean };

/** How the provider answers a fault on a wire. */
function answerOf(fault: WireFault | undefined, wire: Wire): Answer {
  const frames = FRAMES[wire];
  const { start, text, end, error } = frames;
  const word = text(FIRST_WORD);
  const ends = (...parts: Frame[]): Answer => ({ kind: 'stream', frames: parts, stalls: false });
  const stalls = (...parts: Frame[]): Answer => ({ kind: 'stream', frames: parts, stalls: true });
  const json = (status: number, body: string, headers: Record<string, string> = {}): Answer => ({
    kind: 'status',
    status,
    contentType: 'application/json',
    headers,
    body,
  });
  switch (fault) {
    case 'error-event-first-overloaded':
      return ends(...start, error(...OVERLOADED));
    case 'error-event-first-rate-limit':
      return ends(...start, error('rate_limit_error', 'Rate limit reached'));
    case 'error-event-first-server':
      return ends(...start, error('api_error', 'The server had an error'));
    case 'error-event-mid':
      return ends(...start, word, error(...OVERLOADED));
    case 'malformed-first':
      return ends(...start, MALFORMED, word, ...end);
    case 'malformed-mid':
      return ends(...start, word, MALFORMED, ...end);
    case 'truncated':
      return ends(...start, word);
    case 'http-429':
      return json(429, '{"error":{"message":"Rate limit reached","type":"requests"}}', {
        'retry-after': String(PROVIDER_RETRY_AFTER_SECONDS),
      });
    case 'http-400-context-length':
      return json(400, refusalBody(wire, CONTEXT_LENGTH_REFUSALS[wire], 'context_length_exceeded'));
    case 'http-400-invalid':
      return json(400, refusalBody(wire, INVALID_REQUEST_REFUSAL, null));
    case 'http-401':
      return json(
        401,
        wire === 'openai'
          ? JSON.stringify({
              error: { message: KEY_REFUSAL, type: 'invalid_request_error', code: 'invalid_api_key' },
            })
          : JSON.stringify({ type: 'error', error: { type: 'authentication_error', message: KEY_REFUSAL } }),
      );
    case 'http-500':
      return json(500, '{"error":{"message":"Internal error","type":"server_error"}}');
    case 'http-529':
      return json(529, '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}');
    case 'html':
      return {
        kind: 'status',
        status: 200,
        contentType: 'text/html',
        headers: {},
        body: '<html><body><h1>502 Bad Gateway</h1></body></html>',
      };
    case 'no-headers':
      return { kind: 'silent' };
    case 'stall-first':
      return stalls(...start);
    case 'stall-mid':
      return stalls(...start, word);
    case undefined:
      return ends(...start, word, ...end);
  }
}

/** A refusal of the request as each wire's error body has it. */
function refusalBody(wire: Wire, message: string, code: string | null): string {
  return wire === 'openai'
    ? JSON.stringify({ error: { message, type: 'invalid_request_error', param: 'messages', code } })
    : JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message } });
}
