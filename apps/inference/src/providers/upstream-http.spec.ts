import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expectEventually } from '@gw/testing';
import { UpstreamFailure } from '@gw/paid-generation';
import { UpstreamAbort } from './upstream-abort';
import { UpstreamHttp } from './upstream-http';

/**
 * A provider that streams `events` data lines, then `[DONE]`, then ends; it counts the connections
 * it was sent on, and the answers it streamed at once at most.
 */
function provider(events: number, frameGapMs = 0) {
  const state = { connections: 0, closedEarly: 0 };
  const answering = { now: 0, most: 0 };
  const server: Server = createServer((request, response: ServerResponse) => {
    request.resume();
    request.on('end', () => void answer(response));
    response.on('close', () => {
      if (!response.writableFinished) state.closedEarly += 1;
    });
  });
  const answer = async (response: ServerResponse) => {
    answering.most = Math.max(answering.most, ++answering.now);
    response.on('close', () => (answering.now -= 1));
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    for (let i = 0; i < events && !response.destroyed; i++) {
      response.write(`data: {"n":${i}}\n\n`);
      if (frameGapMs > 0) await new Promise((resolve) => setTimeout(resolve, frameGapMs));
    }
    if (response.destroyed) return;
    response.write('data: [DONE]\n\n');
    response.end();
  };
  server.on('connection', () => (state.connections += 1));
  return {
    state,
    answering,
    listen: () =>
      new Promise<string>((resolve) =>
        server.listen(0, '127.0.0.1', () =>
          resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
        ),
      ),
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

const isDone = (event: { data: string }) => event.data === '[DONE]';

describe('UpstreamHttp.events', () => {
  let http: UpstreamHttp;
  beforeEach(() => (http = new UpstreamHttp(10_000, 16)));
  afterEach(() => http.onApplicationShutdown());

  it('reads every event up to the last, and keeps the connection for the next answer', async () => {
    const upstream = provider(20);
    const url = await upstream.listen();
    try {
      for (let call = 0; call < 3; call++) {
        const response = await http.post(url, {}, {}, new UpstreamAbort());
        const data: string[] = [];
        for await (const event of http.events(response, isDone)) {
          data.push(event.data);
          if (isDone(event)) break;
        }
        expect(data).toHaveLength(21);
        expect(data.at(-1)).toBe('[DONE]');
        // The end of the stream is read in the background: the pool has the connection back a moment later.
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(upstream.state).toEqual({ connections: 1, closedEarly: 0 });
    } finally {
      await upstream.close();
    }
  });

  it('closes the connection of an answer left before its end, which stops the provider', async () => {
    const upstream = provider(50, 5);
    const url = await upstream.listen();
    try {
      const response = await http.post(url, {}, {}, new AbortController().signal);
      for await (const event of http.events(response, isDone)) {
        if (event.data === '{"n":2}') break;
      }
      await expectEventually(() => expect(upstream.state.closedEarly).toBe(1));
      const next = await http.post(url, {}, {}, new AbortController().signal);
      let events = 0;
      for await (const event of http.events(next, isDone)) {
        events += 1;
        if (isDone(event)) break;
      }
      expect(events).toBe(51);
    } finally {
      await upstream.close();
    }
  });
});

describe('UpstreamHttp connections', () => {
  /** Opens `streams` answers at once and reads each to its end; answers how many the provider streamed at once at most. */
  async function mostAtOnce(maxConnections: number, streams: number): Promise<number> {
    const http = new UpstreamHttp(10_000, maxConnections);
    // An answer lasts about a second: far longer than opening every connection takes.
    const upstream = provider(10, 100);
    const url = await upstream.listen();
    try {
      await Promise.all(
        Array.from({ length: streams }, async () => {
          const response = await http.post(url, {}, {}, new UpstreamAbort());
          for await (const event of http.events(response, isDone)) if (isDone(event)) break;
        }),
      );
      return upstream.answering.most;
    } finally {
      await http.onApplicationShutdown();
      await upstream.close();
    }
  }

  it('streams as many answers side by side as it may open connections, more than the 128 it used to', async () => {
    await expect(mostAtOnce(300, 200)).resolves.toBe(200);
  });

  it('makes answers beyond the bound wait for a free connection', async () => {
    await expect(mostAtOnce(4, 8)).resolves.toBe(4);
  });
});

describe('UpstreamAbort as the signal of an upstream call', () => {
  let http: UpstreamHttp;
  beforeEach(() => (http = new UpstreamHttp(10_000, 16)));
  afterEach(() => http.onApplicationShutdown());

  it("stops an attempt's answer when its generation is aborted, as an aborted request", async () => {
    const upstream = provider(200, 5);
    const url = await upstream.listen();
    try {
      const generation = new UpstreamAbort();
      const attempt = generation.attempt();
      const response = await http.post(url, {}, {}, attempt);
      const read = (async () => {
        for await (const event of http.events(response, isDone)) {
          if (event.data === '{"n":3}') generation.abort();
        }
      })();
      const failure = await read.then(
        () => null,
        (err: unknown) => err,
      );
      expect(failure).toBeInstanceOf(UpstreamFailure);
      expect((failure as UpstreamFailure).kind).toBe('aborted');
      expect(attempt.aborted).toBe(true);
      expect(attempt.reason).toMatchObject({ name: 'AbortError' });
      await expectEventually(() => expect(upstream.state.closedEarly).toBe(1));
    } finally {
      await upstream.close();
    }
  });

  it('refuses a call whose generation was aborted before the attempt began', async () => {
    const upstream = provider(1);
    const url = await upstream.listen();
    try {
      const generation = new UpstreamAbort();
      generation.abort();
      await expect(http.post(url, {}, {}, generation.attempt())).rejects.toMatchObject({ kind: 'aborted' });
    } finally {
      await upstream.close();
    }
  });

  it('stopping one attempt leaves its generation and the next attempt running', () => {
    const generation = new UpstreamAbort();
    const first = generation.attempt();
    first.abort();
    const second = generation.attempt();
    expect([first.aborted, generation.aborted, second.aborted]).toEqual([true, false, false]);
  });
});
