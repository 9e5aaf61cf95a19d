import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expectEventually } from '@gw/testing';
import { UpstreamFailure } from '@gw/paid-generation';
import { UpstreamAbort } from './upstream-abort';
import { type SseReading, UpstreamHttp } from './upstream-http';

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

/** Each event's data line as its piece, up to `[DONE]`; an `{"error":…}` line is refused. */
const DATA_LINES: SseReading<string> = {
  isLast: (event) => event.data === '[DONE]',
  read: (event) => {
    if (event.data.startsWith('{"error"')) throw new UpstreamFailure('provider_error', event.data);
    return event.data;
  },
  unfinished: 'ended without [DONE]',
};

describe('UpstreamHttp.stream', () => {
  let http: UpstreamHttp;
  beforeEach(() => (http = new UpstreamHttp(10_000, 16)));
  afterEach(() => http.onApplicationShutdown());

  it('reads every event up to the last, and keeps the connection for the next answer', async () => {
    const upstream = provider(20);
    const url = await upstream.listen();
    try {
      for (let call = 0; call < 3; call++) {
        const data: string[] = [];
        for await (const batch of http.stream(url, {}, {}, new UpstreamAbort(), DATA_LINES))
          data.push(...batch);
        expect(data).toEqual(Array.from({ length: 20 }, (_, i) => `{"n":${i}}`));
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
      for await (const batch of http.stream(url, {}, {}, new AbortController().signal, DATA_LINES)) {
        if (batch.includes('{"n":2}')) break;
      }
      await expectEventually(() => expect(upstream.state.closedEarly).toBe(1));
      let events = 0;
      for await (const batch of http.stream(url, {}, {}, new AbortController().signal, DATA_LINES))
        events += batch.length;
      expect(events).toBe(50);
    } finally {
      await upstream.close();
    }
  });

  /** A provider that sends `body` in one write and ends. */
  async function oneWrite(body: string): Promise<{ url: string; close: () => Promise<unknown> }> {
    const server = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.end(body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      close: () => new Promise((resolve) => server.close(resolve)),
    };
  }

  /** Reads a stream to its end: the pieces it passed on, and what it failed with (null when it ended well). */
  async function readAll(url: string): Promise<{ pieces: string[]; failure: unknown }> {
    const pieces: string[] = [];
    try {
      for await (const batch of http.stream(url, {}, {}, new UpstreamAbort(), DATA_LINES))
        pieces.push(...batch);
      return { pieces, failure: null };
    } catch (failure) {
      return { pieces, failure };
    }
  }

  it('hands over the events of one read as one batch, and nothing after the last', async () => {
    const events = Array.from({ length: 20 }, (_, i) => `data: {"n":${i}}\n\n`).join('');
    const upstream = await oneWrite(`${events}data: [DONE]\n\ndata: {"after":true}\n\n`);
    try {
      const batches: string[][] = [];
      for await (const batch of http.stream(upstream.url, {}, {}, new UpstreamAbort(), DATA_LINES))
        batches.push(batch);
      expect(batches).toEqual([Array.from({ length: 20 }, (_, i) => `{"n":${i}}`)]);
    } finally {
      await upstream.close();
    }
  });

  it('passes on the pieces read before a refused event, then fails with its failure', async () => {
    const upstream = await oneWrite('data: {"n":0}\n\ndata: {"n":1}\n\ndata: {"error":"overloaded"}\n\n');
    try {
      const { pieces, failure } = await readAll(upstream.url);
      expect(pieces).toEqual(['{"n":0}', '{"n":1}']);
      expect(failure).toMatchObject({ kind: 'provider_error', message: '{"error":"overloaded"}' });
    } finally {
      await upstream.close();
    }
  });

  it('fails a body that ends before its last event as the reading says', async () => {
    const upstream = await oneWrite('data: {"n":0}\n\n');
    try {
      const { pieces, failure } = await readAll(upstream.url);
      expect(pieces).toEqual(['{"n":0}']);
      expect(failure).toMatchObject({ kind: 'protocol', message: 'ended without [DONE]' });
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
          for await (const batch of http.stream(url, {}, {}, new UpstreamAbort(), DATA_LINES)) void batch;
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
      const read = (async () => {
        for await (const batch of http.stream(url, {}, {}, attempt, DATA_LINES)) {
          if (batch.includes('{"n":3}')) generation.abort();
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
