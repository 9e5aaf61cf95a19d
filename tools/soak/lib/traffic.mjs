// The soak's mixed traffic: which operation comes next (a smooth weighted round robin, so the mix
// is the same every second rather than random), and each operation as a client makes it over HTTP.
import { randomBytes } from 'node:crypto';

/** Weights of the mix: out of 20 operations, 6 chats, 5 streamed chats, 4 embeddings, 3 history reads, 1 file, 1 media. */
export const MIX = { chat: 6, stream: 5, embed: 4, history: 3, file: 1, media: 1 };

/** One cycle of the smooth weighted round robin over `mix` (nginx's): each name as often as its weight, spread out. */
export function cycle(mix) {
  const names = Object.keys(mix);
  const total = names.reduce((sum, name) => sum + mix[name], 0);
  const current = Object.fromEntries(names.map((name) => [name, 0]));
  const order = [];
  for (let i = 0; i < total; i++) {
    for (const name of names) current[name] += mix[name];
    const next = names.reduce((best, name) => (current[name] > current[best] ? name : best), names[0]);
    current[next] -= total;
    order.push(next);
  }
  return order;
}

const TIMEOUT_MS = 60_000;
/** A PNG signature and header followed by noise: storage types a file by its content. */
const pngHeader = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');

/** The operations against a gateway at `base` (`http://…/api`) with API key `key`; each throws on failure. */
export function operations(base, key) {
  const auth = { authorization: `Bearer ${key}` };
  let n = 0;
  const call = async (what, method, path, { json, form, expect = [200] } = {}) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { ...auth, ...(json !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: json !== undefined ? JSON.stringify(json) : form,
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    const text = await response.text();
    if (!expect.includes(response.status))
      throw new Error(`${what}: HTTP ${response.status} ${text.replace(/\s+/g, ' ').slice(0, 160)}`);
    return text;
  };
  const parsed = (what, text, check) => {
    const body = JSON.parse(text);
    if (!check(body)) throw new Error(`${what}: unexpected answer ${text.slice(0, 160)}`);
    return body;
  };
  const messages = () => [{ role: 'user', content: `Soak message ${++n}: say something short.` }];
  return {
    chat: async () => {
      const text = await call('chat', 'POST', '/v1/chat/completions', {
        json: { model: 'demo/chat', messages: messages(), max_tokens: 32 },
      });
      parsed('chat', text, (body) => typeof body.choices?.[0]?.message?.content === 'string');
    },
    stream: async () => {
      const text = await call('stream', 'POST', '/v1/chat/completions', {
        json: { model: 'demo/chat', messages: messages(), max_tokens: 32, stream: true },
      });
      if (!text.includes('data: [DONE]')) throw new Error(`stream: no [DONE] in ${text.slice(-160)}`);
    },
    embed: async () => {
      const text = await call('embed', 'POST', '/v1/embeddings', {
        json: { model: 'demo/embed-small', input: `Soak input ${++n}` },
      });
      parsed('embed', text, (body) => Array.isArray(body.data?.[0]?.embedding));
    },
    history: async () => {
      const list = await call('history', 'GET', '/v1/history/generations?limit=20');
      parsed('history', list, (body) => Array.isArray(body.items));
      const balance = await call('history', 'GET', '/v1/balance');
      parsed('history', balance, (body) => body.amount !== undefined);
    },
    file: async () => {
      const form = new FormData();
      form.append('file', new Blob([Buffer.concat([pngHeader, randomBytes(4096)])]), 'soak.png');
      const stored = parsed(
        'file',
        await call('file upload', 'POST', '/v1/storage/files', { form, expect: [200, 201] }),
        (body) => typeof body.id === 'string',
      );
      await call('file delete', 'DELETE', `/v1/storage/files/${encodeURIComponent(stored.id)}`, {
        expect: [200, 204],
      });
    },
    media: async () => {
      let generation = parsed(
        'media',
        await call('media', 'POST', '/v1/media', {
          json: { model: 'demo/image', params: { prompt: `A soak test picture ${++n}` } },
        }),
        (body) => typeof body.id === 'string',
      );
      const deadline = Date.now() + TIMEOUT_MS;
      while (!['completed', 'failed', 'cancelled'].includes(generation.status) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 500));
        generation = JSON.parse(await call('media', 'GET', `/v1/media/${generation.id}`));
      }
      if (generation.status !== 'completed')
        throw new Error(`media: generation ${generation.id} ended ${generation.status}`);
    },
  };
}
