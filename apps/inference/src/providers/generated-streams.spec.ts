import fc from 'fast-check';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { UpstreamFailure } from '@gw/paid-generation';
import { AnthropicWireAdapter } from './anthropic-wire.adapter';
import { OpenAiWireAdapter } from './openai-wire.adapter';
import { UpstreamAbort } from './upstream-abort';
import type { ChatAdapter, UpstreamStreamEvent } from './upstream-chat';
import { UpstreamHttp } from './upstream-http';

/**
 * Generated provider streams, fed byte by byte through a real HTTP connection to each wire's
 * adapter: valid frames of the wire mixed with error events, unknown events, comments, lines that
 * are not JSON or not objects, fields of the wrong type, huge lines and invalid UTF-8, split at
 * random points and ended, cut or left open. Whatever arrives, the adapter yields only well-formed
 * events and ends or throws an UpstreamFailure; no error escapes to the process (Jest fails a test
 * on an unhandled 'error' event).
 */

type Wire = 'openai' | 'anthropic';

const text = fc.string({ maxLength: 20 });
const anyJson = fc.jsonValue({ maxDepth: 3 });
const oddValue = fc.oneof(
  anyJson,
  fc.constant(null),
  fc.integer({ min: -5, max: 5 }),
  fc.double(),
  fc.string(),
  fc.constant([]),
);

function openAiData(data: unknown): string {
  return `data: ${JSON.stringify(data)}\n\n`;
}

function anthropicEvent(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

const WIRE_FRAMES: Record<Wire, fc.Arbitrary<string>[]> = {
  openai: [
    text.map((content) => openAiData({ choices: [{ index: 0, delta: { content }, finish_reason: null }] })),
    fc.record({ index: oddValue, id: oddValue, arguments: oddValue }).map((call) =>
      openAiData({
        choices: [
          {
            delta: {
              tool_calls: [{ index: call.index, id: call.id, function: { arguments: call.arguments } }],
            },
          },
        ],
      }),
    ),
    fc.record({ reasoning: oddValue, details: oddValue, type: oddValue, signature: oddValue }).map((r) =>
      openAiData({
        choices: [
          {
            delta: {
              reasoning: r.reasoning,
              reasoning_details: [
                r.details,
                { type: r.type, text: r.reasoning, signature: r.signature, index: r.details },
              ],
            },
          },
        ],
      }),
    ),
    oddValue.map((finish) => openAiData({ choices: [{ delta: {}, finish_reason: finish }] })),
    fc
      .record({ prompt: oddValue, completion: oddValue })
      .map((u) =>
        openAiData({ choices: [], usage: { prompt_tokens: u.prompt, completion_tokens: u.completion } }),
      ),
    fc.record({ details: oddValue, cached: oddValue, reasoning: oddValue, searches: oddValue }).map((u) =>
      openAiData({
        choices: [],
        usage: {
          prompt_tokens: 10,
          completion_tokens: 5,
          prompt_tokens_details: u.details ?? { cached_tokens: u.cached, cache_write_tokens: u.cached },
          completion_tokens_details: { reasoning_tokens: u.reasoning },
          server_tool_use: { web_search_requests: u.searches },
        },
      }),
    ),
    fc.record({ message: oddValue, type: oddValue, code: oddValue }).map((error) => openAiData({ error })),
    oddValue.map((choices) => openAiData({ choices })),
    fc.constant('data: [DONE]\n\n'),
  ],
  anthropic: [
    oddValue.map((input) =>
      anthropicEvent('message_start', { type: 'message_start', message: { usage: { input_tokens: input } } }),
    ),
    text.map((t) =>
      anthropicEvent('content_block_delta', {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'text_delta', text: t },
      }),
    ),
    fc.record({ id: oddValue, name: oddValue, index: oddValue }).map((block) =>
      anthropicEvent('content_block_start', {
        type: 'content_block_start',
        index: block.index,
        content_block: { type: 'tool_use', id: block.id, name: block.name },
      }),
    ),
    oddValue.map((json) =>
      anthropicEvent('content_block_delta', {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'input_json_delta', partial_json: json },
      }),
    ),
    fc.record({ stop: oddValue, output: oddValue }).map((d) =>
      anthropicEvent('message_delta', {
        type: 'message_delta',
        delta: { stop_reason: d.stop },
        usage: { output_tokens: d.output },
      }),
    ),
    fc.record({ read: oddValue, written: oddValue, creation: oddValue, tools: oddValue }).map((u) =>
      anthropicEvent('message_start', {
        type: 'message_start',
        message: {
          usage: {
            input_tokens: 7,
            cache_read_input_tokens: u.read,
            cache_creation_input_tokens: u.written,
            cache_creation: u.creation,
            server_tool_use: u.tools,
          },
        },
      }),
    ),
    fc.record({ usage: oddValue, hour: oddValue, searches: oddValue }).map((d) =>
      anthropicEvent('message_delta', {
        type: 'message_delta',
        delta: { stop_reason: 'end_turn' },
        usage: d.usage ?? {
          output_tokens: 3,
          cache_creation_input_tokens: 4,
          cache_creation: { ephemeral_1h_input_tokens: d.hour },
          server_tool_use: { web_search_requests: d.searches },
        },
      }),
    ),
    fc
      .record({ type: oddValue, message: oddValue })
      .map((error) => anthropicEvent('error', { type: 'error', error })),
    oddValue.map((data) => anthropicEvent('content_block_delta', data)),
    fc.record({ index: oddValue, type: oddValue, data: oddValue }).map((block) =>
      anthropicEvent('content_block_start', {
        type: 'content_block_start',
        index: block.index,
        content_block: { type: block.type, thinking: block.data, signature: block.data, data: block.data },
      }),
    ),
    fc.record({ index: oddValue, type: oddValue, text: oddValue }).map((delta) =>
      anthropicEvent('content_block_delta', {
        type: 'content_block_delta',
        index: delta.index,
        delta: { type: delta.type, thinking: delta.text, signature: delta.text },
      }),
    ),
    fc.constant(anthropicEvent('message_stop', { type: 'message_stop' })),
  ],
};

/** What any stream may carry besides the wire's own frames. */
const FOREIGN_FRAMES: fc.Arbitrary<string | Buffer>[] = [
  fc.constant(': ping\n\n'),
  fc.constant('data: {not json\n\n'),
  oddValue.map((value) => `event: something_new\ndata: ${JSON.stringify(value)}\n\n`),
  fc.constantFrom('data: 42\n\n', 'data: null\n\n', 'data: []\n\n', 'data: "text"\n\n', 'data:\n\n', 'data'),
  fc.integer({ min: 64 * 1024, max: 300 * 1024 }).map((size) => `data: ${'x'.repeat(size)}\n\n`),
  fc.uint8Array({ minLength: 1, maxLength: 64 }).map((bytes) => Buffer.from(bytes)),
  fc.constant(Buffer.from([0x64, 0x61, 0x74, 0x61, 0x3a, 0x20, 0xff, 0xfe, 0xc3, 0x0a, 0x0a])),
];

interface GeneratedStream {
  bytes: Buffer;
  /** Where the bytes are split into separate writes, as fractions of their length. */
  splits: number[];
  ending: 'end' | 'cut' | 'open';
  /** The consumer leaves after this many events, or reads to the end. */
  leaveAfter: number | null;
}

function streams(wire: Wire): fc.Arbitrary<GeneratedStream> {
  return fc.record({
    bytes: fc
      .array(
        fc.oneof({ weight: 3, arbitrary: fc.oneof(...WIRE_FRAMES[wire]) }, fc.oneof(...FOREIGN_FRAMES)),
        {
          maxLength: 25,
        },
      )
      .map((frames) =>
        Buffer.concat(frames.map((frame) => (typeof frame === 'string' ? Buffer.from(frame) : frame))),
      ),
    splits: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 8 }),
    ending: fc.constantFrom<GeneratedStream['ending']>('end', 'end', 'end', 'cut', 'open'),
    leaveAfter: fc.option(fc.nat({ max: 10 })),
  });
}

/** A provider that writes the stream the test hands it next, in its pieces. */
class ScriptedProvider {
  private readonly server: Server;
  private readonly open = new Set<ServerResponse>();
  next: GeneratedStream | null = null;
  url = '';

  constructor() {
    this.server = createServer((request, response) => {
      request.resume();
      request.on('end', () => void this.write(response, this.next as GeneratedStream));
    });
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    for (const response of this.open) response.destroy();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private async write(response: ServerResponse, stream: GeneratedStream): Promise<void> {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    const cuts = [...new Set(stream.splits.map((f) => Math.floor(f * stream.bytes.length)))].sort(
      (a, b) => a - b,
    );
    let from = 0;
    for (const cut of [...cuts, stream.bytes.length]) {
      if (response.destroyed) return;
      if (cut > from) response.write(stream.bytes.subarray(from, cut));
      from = cut;
      await new Promise((resolve) => setImmediate(resolve));
    }
    if (stream.ending === 'end') response.end();
    else if (stream.ending === 'cut') response.socket?.destroy();
    else this.open.add(response);
  }
}

const isCount = (value: unknown) => typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;

/** The shape every event an adapter yields must have, whatever the provider sent. */
function expectWellFormed(event: UpstreamStreamEvent): void {
  const fields = Object.keys(event);
  expect(
    fields.every((f) =>
      [
        'promptTokens',
        'content',
        'reasoning',
        'reasoningDetails',
        'toolCalls',
        'finishReason',
        'usage',
      ].includes(f),
    ),
  ).toBe(true);
  if ('reasoning' in event) expect(typeof event.reasoning).toBe('string');
  for (const detail of event.reasoningDetails ?? []) {
    expect(['reasoning.text', 'reasoning.encrypted', 'reasoning.summary']).toContain(detail.type);
    const fields: Record<string, unknown> = { ...detail };
    for (const field of ['text', 'signature', 'data', 'summary', 'id', 'format'])
      if (field in fields) expect(typeof fields[field]).toBe('string');
    if (detail.index !== undefined)
      expect(Number.isSafeInteger(detail.index) && detail.index >= 0).toBe(true);
  }
  if ('promptTokens' in event) expect(isCount(event.promptTokens)).toBe(true);
  if ('content' in event) expect(typeof event.content).toBe('string');
  if ('finishReason' in event) expect(typeof event.finishReason).toBe('string');
  if ('usage' in event) {
    expect(isCount(event.usage?.prompt_tokens)).toBe(true);
    expect(isCount(event.usage?.completion_tokens)).toBe(true);
    // Every part the adapter reports is a count, whatever the provider wrote in its place.
    expect(Object.values(event.usage ?? {}).every(isCount)).toBe(true);
  }
  if ('toolCalls' in event) {
    expect(Array.isArray(event.toolCalls)).toBe(true);
    for (const call of event.toolCalls ?? []) {
      expect(Number.isInteger(call.index)).toBe(true);
      if (call.id !== undefined) expect(typeof call.id).toBe('string');
      if (call.function?.name !== undefined) expect(typeof call.function.name).toBe('string');
      if (call.function?.arguments !== undefined) expect(typeof call.function.arguments).toBe('string');
    }
  }
}

describe.each(['openai', 'anthropic'] as const)('generated %s-wire streams', (wire) => {
  const provider = new ScriptedProvider();
  // The upstream timeout bounds a stream left open: the adapter then fails with a timeout.
  const http = new UpstreamHttp(300, 16);
  const adapter: ChatAdapter =
    wire === 'openai' ? new OpenAiWireAdapter(http) : new AnthropicWireAdapter(http);

  beforeAll(() => provider.start());
  afterAll(async () => {
    await http.onApplicationShutdown();
    await provider.stop();
  });

  it('yield only well-formed events and end or fail as an UpstreamFailure', async () => {
    await fc.assert(
      fc.asyncProperty(streams(wire), async (stream) => {
        provider.next = stream;
        const call = {
          baseUrl: wire === 'openai' ? `${provider.url}/v1` : provider.url,
          apiKey: 'key',
          request: { model: 'm', messages: [{ role: 'user' as const, content: 'hi' }], max_tokens: 16 },
          signal: new UpstreamAbort(),
        };
        let seen = 0;
        try {
          for await (const batch of adapter.stream(call)) {
            expect(batch.length).toBeGreaterThan(0);
            batch.forEach(expectWellFormed);
            seen += batch.length;
            if (stream.leaveAfter !== null && seen > stream.leaveAfter) break;
          }
        } catch (err) {
          expect(err).toBeInstanceOf(UpstreamFailure);
        }
      }),
      { numRuns: 100 },
    );
  });
});
