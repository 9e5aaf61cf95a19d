#!/usr/bin/env node
// The floor for a Node gateway: node:http in, node:http out with a keep-alive agent, bodies piped
// (SSE frames pass through as they come), no parsing, no logging.
//
//   node raw-proxy.mjs --port 18911 --upstream http://127.0.0.1:18901
import http from 'node:http';

const option = (name) => process.argv[process.argv.indexOf(`--${name}`) + 1];
const PORT = Number(option('port'));
const UPSTREAM = new URL(option('upstream'));

// RFC 9110 hop-by-hop headers are not forwarded.
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
]);
const endToEnd = (headers) => {
  const kept = {};
  for (const name in headers) if (!HOP_BY_HOP.has(name)) kept[name] = headers[name];
  return kept;
};
const agent = new http.Agent({
  keepAlive: true,
  maxSockets: Infinity,
  maxFreeSockets: 1024,
  scheduling: 'lifo',
});

const server = http.createServer({ noDelay: true, keepAlive: true }, (req, res) => {
  const upstream = http.request(
    {
      host: UPSTREAM.hostname,
      port: UPSTREAM.port,
      method: req.method,
      path: req.url,
      headers: { ...endToEnd(req.headers), host: UPSTREAM.host },
      agent,
    },
    (answer) => {
      res.writeHead(answer.statusCode, endToEnd(answer.headers));
      answer.pipe(res);
    },
  );
  upstream.on('error', (err) => {
    if (res.headersSent) return void res.destroy(err);
    res.writeHead(502, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message: `upstream error: ${err.message}`, type: 'bad_gateway' } }));
  });
  res.on('close', () => {
    if (!res.writableFinished) upstream.destroy();
  });
  req.pipe(upstream);
});
server.keepAliveTimeout = 120_000;
server.headersTimeout = 121_000;
server.requestTimeout = 0;
server.listen(PORT, '127.0.0.1', () => console.log(`bench raw-proxy listening on 127.0.0.1:${PORT}`));
process.on('SIGTERM', () => process.exit(0));
process.on('SIGINT', () => process.exit(0));
