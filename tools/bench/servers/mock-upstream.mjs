#!/usr/bin/env node
// The bench's upstream: an OpenAI-compatible server that answers at once, built so that it is never
// the bottleneck (answers are precomputed strings; per request: read the body, one JSON.parse, a
// template). Not the repo's mock-upstream app: that one is a NestJS app meant to behave like a
// provider, this one is meant to cost nothing.
//
//   node mock-upstream.mjs --port 18901 [--chunks 20] [--paced-delay-ms 10] [--long-chunks 200] [--long-delay-ms 20]
//
// POST /v1/chat/completions  JSON, or SSE with {"stream": true}: a role frame, --chunks content frames,
//                            a finish frame, a usage frame (stream_options.include_usage), [DONE].
//                            Back to back, except for a model whose name contains "paced": its frames
//                            come --paced-delay-ms apart, so time to first byte differs from the total;
//                            and a model whose name contains "long": --long-chunks content frames, every
//                            frame --long-delay-ms apart (200 × 20 ms: a 4 s answer at 50 tokens/s, as a
//                            model streams it).
// POST /v1/embeddings        one 1536-float vector per input.
// GET  /health
import http from 'node:http';

const option = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
};
const PORT = option('port', 18901);
const CHUNKS = option('chunks', 20);
const PACED_DELAY_MS = option('paced-delay-ms', 10);
const LONG_CHUNKS = option('long-chunks', 200);
const LONG_DELAY_MS = option('long-delay-ms', 20);
const EMBED_DIM = 1536;

const VOCAB =
  'The quick brown fox jumps over the lazy dog while a gateway forwards every token to the client'.split(' ');
const word = (i) => (i === 0 ? '' : ' ') + VOCAB[i % VOCAB.length];
const CONTENT_JSON = JSON.stringify(Array.from({ length: 40 }, (_, i) => word(i)).join('') + '.');
const PIECES = Array.from({ length: CHUNKS }, (_, i) => JSON.stringify(word(i)));
const LONG_PIECES = Array.from({ length: LONG_CHUNKS }, (_, i) => JSON.stringify(word(i)));
let seed = 42;
const random = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff) * 0.08 - 0.04;
const VECTOR_JSON = `[${Array.from({ length: EMBED_DIM }, () => random().toFixed(8)).join(',')}]`;

let sequence = 0;
const nextId = () => (++sequence).toString(36);

function sendJson(res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

function chat(res, body, promptTokens) {
  const model = JSON.stringify(typeof body.model === 'string' ? body.model : 'gpt-4o-mini');
  const id = `chatcmpl-mock${nextId()}`;
  const created = Math.floor(Date.now() / 1000);
  if (body.stream === true) return stream(res, body, id, model, created, promptTokens);
  sendJson(
    res,
    200,
    `{"id":"${id}","object":"chat.completion","created":${created},"model":${model},` +
      `"choices":[{"index":0,"message":{"role":"assistant","content":${CONTENT_JSON}},"logprobs":null,"finish_reason":"stop"}],` +
      `"usage":{"prompt_tokens":${promptTokens},"completion_tokens":41,"total_tokens":${promptTokens + 41}},` +
      `"system_fingerprint":"fp_mock"}`,
  );
}

function stream(res, body, id, model, created, promptTokens) {
  const head = `data: {"id":"${id}","object":"chat.completion.chunk","created":${created},"model":${model},"system_fingerprint":"fp_mock","choices":[`;
  const long = typeof body.model === 'string' && body.model.includes('long');
  const pieces = long ? LONG_PIECES : PIECES;
  const frames = [`${head}{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}\n\n`];
  for (const piece of pieces)
    frames.push(`${head}{"index":0,"delta":{"content":${piece}},"finish_reason":null}]}\n\n`);
  frames.push(`${head}{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n`);
  if (body.stream_options?.include_usage === true) {
    frames.push(
      `${head}],"usage":{"prompt_tokens":${promptTokens},"completion_tokens":${pieces.length},"total_tokens":${promptTokens + pieces.length}}}\n\n`,
    );
  }
  frames.push('data: [DONE]\n\n');
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  const paced = typeof body.model === 'string' && body.model.includes('paced');
  if (!paced && !long) {
    for (let i = 0; i < frames.length - 1; i++) res.write(frames[i]);
    res.end(frames[frames.length - 1]);
    return;
  }
  let next = 0;
  let timer = null;
  res.on('close', () => clearTimeout(timer));
  const tick = () => {
    if (res.destroyed) return;
    if (next === frames.length - 1) return void res.end(frames[next]);
    res.write(frames[next++]);
    timer = setTimeout(tick, long ? LONG_DELAY_MS : PACED_DELAY_MS);
  };
  tick();
}

function embeddings(res, body, promptTokens) {
  const count = Array.isArray(body.input) && typeof body.input[0] !== 'number' ? body.input.length : 1;
  const data = Array.from(
    { length: count },
    (_, i) => `{"object":"embedding","index":${i},"embedding":${VECTOR_JSON}}`,
  ).join(',');
  const model = JSON.stringify(typeof body.model === 'string' ? body.model : 'text-embedding-3-small');
  sendJson(
    res,
    200,
    `{"object":"list","data":[${data}],"model":${model},"usage":{"prompt_tokens":${promptTokens},"total_tokens":${promptTokens}}}`,
  );
}

const server = http.createServer({ noDelay: true, keepAlive: true }, (req, res) => {
  if (req.method === 'GET' && req.url === '/health') return sendJson(res, 200, '{"ok":true}');
  const isChat = req.url.startsWith('/v1/chat/completions');
  const isEmbeddings = req.url.startsWith('/v1/embeddings');
  if (req.method !== 'POST' || (!isChat && !isEmbeddings)) {
    req.resume();
    return sendJson(res, 404, '{"error":{"message":"not found","type":"invalid_request_error"}}');
  }
  const chunks = [];
  let size = 0;
  req.on('data', (chunk) => {
    chunks.push(chunk);
    size += chunk.length;
  });
  req.on('end', () => {
    let body;
    try {
      body = JSON.parse(Buffer.concat(chunks, size));
    } catch {
      return sendJson(res, 400, '{"error":{"message":"invalid JSON","type":"invalid_request_error"}}');
    }
    const promptTokens = Math.max(1, Math.round(size / 4));
    return isChat ? chat(res, body, promptTokens) : embeddings(res, body, promptTokens);
  });
});
server.keepAliveTimeout = 120_000;
server.headersTimeout = 121_000;
server.requestTimeout = 0;
server.listen(PORT, '127.0.0.1', () => console.log(`bench mock-upstream listening on 127.0.0.1:${PORT}`));
process.on('SIGTERM', () => process.exit(0));
process.on('SIGINT', () => process.exit(0));
