// Full garbage collections on demand in the soak's Node processes, over the inspector each was
// started with (NODE_OPTIONS=--inspect=127.0.0.1:0, the port in its log): memory is read right
// after one, so that what is sampled is what survives a collection, not where a process happens to
// be in its garbage sawtooth. Only HeapProfiler.collectGarbage and Runtime.getHeapUsage are sent; no
// domain is enabled (an enabled Runtime would keep every console message, a leak of its own).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { WebSocket } = require('undici');

export const INSPECT_OPTIONS = '--inspect=127.0.0.1:0';

/** The inspector's WebSocket URL a Node process printed at start, or null. */
export function inspectorUrl(logText) {
  return /Debugger listening on (ws:\/\/\S+)/.exec(logText)?.[1] ?? null;
}

/** A session on the inspector at `url`: `collect()` runs a full GC and resolves to the heap used after it (MB). */
export async function openInspector(url) {
  const socket = new WebSocket(url);
  const pending = new Map();
  let id = 0;
  socket.onmessage = (event) => {
    const message = JSON.parse(event.data);
    pending.get(message.id)?.(message);
    pending.delete(message.id);
  };
  await new Promise((resolve, reject) => {
    socket.onopen = resolve;
    socket.onerror = () => reject(new Error(`cannot reach the inspector at ${url}`));
  });
  const send = (method) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${method}: no answer in 30 s`)), 30_000);
      pending.set(++id, (message) => {
        clearTimeout(timer);
        if (message.error) reject(new Error(`${method}: ${message.error.message}`));
        else resolve(message.result);
      });
      socket.send(JSON.stringify({ id, method }));
    });
  return {
    collect: async () => {
      await send('HeapProfiler.collectGarbage');
      const { usedSize } = await send('Runtime.getHeapUsage');
      return usedSize / 1048576;
    },
    /** A process with a session still attached waits for it at exit: close before stopping it. */
    close: () =>
      new Promise((resolve) => {
        if (socket.readyState === WebSocket.CLOSED) return resolve();
        socket.onclose = () => resolve();
        socket.close();
        setTimeout(resolve, 2_000);
      }),
  };
}

/** Sessions by process name, for every `{ name, logFile }` whose log shows an inspector. */
export async function openInspectors(processes) {
  const sessions = new Map();
  for (const { name, logFile } of processes) {
    const url = inspectorUrl(readFileSync(logFile, 'utf8'));
    if (url) sessions.set(name, await openInspector(url));
  }
  return sessions;
}
