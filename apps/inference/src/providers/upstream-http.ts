import { type OnApplicationShutdown } from '@nestjs/common';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { Agent, type Dispatcher, type FormData, request } from 'undici';
import { toUpstreamFailure, UpstreamFailure, upstreamJson, upstreamStatusFailure } from '@gw/paid-generation';
import type { UpstreamSignal } from './upstream-abort';
import { BodyReads } from './body-reads';

/** What a provider may still send after the end of its answer before the connection is closed instead of kept. */
const MAX_BYTES_AFTER_ANSWER = 64 * 1024;
const END_AFTER_ANSWER_MS = 5_000;

/**
 * One keep-alive connection pool for every provider and every API (chat, embeddings,
 * transcription); headers and idle-body timeouts bound each call. It is one provider of the
 * module and the only owner of the pool: the adapters use it and never close it.
 */
export class UpstreamHttp implements OnApplicationShutdown {
  private readonly agent: Agent;
  private closing: Promise<void> | null = null;

  constructor(
    private readonly timeoutMs: number,
    maxConnections: number,
  ) {
    this.agent = new Agent({
      keepAliveTimeout: 30_000,
      // Per origin: a streamed answer holds its connection to the end (128 made the 129th stream wait for one).
      connections: maxConnections,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
  }

  /** POSTs JSON; resolves with a 2xx response, otherwise throws UpstreamFailure (after draining the body). */
  post(
    url: string,
    headers: Record<string, string>,
    body: unknown,
    signal?: UpstreamSignal,
  ): Promise<Dispatcher.ResponseData> {
    return this.send(url, { 'content-type': 'application/json', ...headers }, JSON.stringify(body), signal);
  }

  /** POSTs multipart form data (undici writes its content type and boundary); answers as `post` does. */
  postForm(
    url: string,
    headers: Record<string, string>,
    form: FormData,
    signal?: UpstreamSignal,
  ): Promise<Dispatcher.ResponseData> {
    return this.send(url, headers, form, signal);
  }

  private async send(
    url: string,
    headers: Record<string, string>,
    body: string | FormData,
    signal: UpstreamSignal | undefined,
  ): Promise<Dispatcher.ResponseData> {
    let response: Dispatcher.ResponseData;
    try {
      response = await request(url, {
        method: 'POST',
        headers,
        body,
        dispatcher: this.agent,
        signal,
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
      });
    } catch (err) {
      throw toUpstreamFailure(err);
    }
    if (response.statusCode < 200 || response.statusCode >= 300) throw await upstreamStatusFailure(response);
    return response;
  }

  json<T>(response: Dispatcher.ResponseData): Promise<T> {
    return upstreamJson<T>(response);
  }

  /**
   * POSTs JSON and reads the answer's server-sent events as `reading` turns them into pieces, a
   * batch per read from the socket (BodyReads), up to the event `reading.isLast` recognises (the provider's end
   * of the answer). One generator from the socket to the caller, and one step of it per read rather
   * than per event: a plain answer that arrives in one packet is one step, however many events it
   * holds. An event `reading.read` refuses ends the stream with its failure, after the pieces read
   * before it are passed on. After the last event the rest of the body, the stream's own end, is
   * read in the background: the connection goes back to the pool without an AbortError built per
   * answer. A consumer that stops before it, or a stream that breaks, destroys the body, which
   * closes the connection and stops the provider.
   */
  async *stream<T>(
    url: string,
    headers: Record<string, string>,
    body: unknown,
    signal: UpstreamSignal,
    reading: SseReading<T>,
  ): AsyncGenerator<T[]> {
    const response = await this.post(url, headers, body, signal);
    const events: EventSourceMessage[] = [];
    const parser = createParser({ onEvent: (event) => events.push(event) });
    const decoder = new TextDecoder();
    const reads = new BodyReads(response.body);
    let answered = false;
    try {
      for (let read = await reads.next(); read !== null; read = await reads.next()) {
        parser.feed(decoder.decode(read, { stream: true }));
        const { pieces, last, refused } = readEvents(events, reading);
        events.length = 0;
        answered = last;
        if (pieces.length > 0) yield pieces;
        if (refused) throw refused.failure;
        if (answered) return;
      }
    } catch (err) {
      throw toUpstreamFailure(err);
    } finally {
      reads.release();
      if (answered) drainInBackground(response.body);
      else closeUnread(response.body);
    }
    throw new UpstreamFailure('protocol', reading.unfinished);
  }

  /**
   * Closes the pool once, however often it is asked: Nest runs the shutdown hooks again when a
   * service is closed after a signal already shut it down (the embedded mode does both), and
   * undici refuses to close a closed pool.
   */
  onApplicationShutdown(): Promise<void> {
    this.closing ??= this.agent.close();
    return this.closing;
  }
}

/** How one wire's server-sent events become the pieces of an answer. */
export interface SseReading<T> {
  /** Whether `event` is the provider's end of the answer; `read` is not asked for it. */
  isLast(event: EventSourceMessage): boolean;
  /** The piece an event carries, or null for none; throws an UpstreamFailure for an error event or a malformed one. */
  read(event: EventSourceMessage): T | null;
  /** What a body that ends before its last event fails with. */
  unfinished: string;
}

/** The pieces of one read's events, in order, up to the last event or the first one refused. */
function readEvents<T>(
  events: readonly EventSourceMessage[],
  reading: SseReading<T>,
): { pieces: T[]; last: boolean; refused: { failure: unknown } | null } {
  const pieces: T[] = [];
  for (const event of events) {
    if (reading.isLast(event)) return { pieces, last: true, refused: null };
    try {
      const piece = reading.read(event);
      if (piece !== null) pieces.push(piece);
    } catch (failure) {
      return { pieces, last: false, refused: { failure } };
    }
  }
  return { pieces, last: false, refused: null };
}

/**
 * Closes a body its reader left before the end, which stops the provider. undici's body emits an
 * abort error when destroyed unread, and once the reader has left nobody listens for it: without
 * a listener of its own that error would end the process.
 */
function closeUnread(body: Dispatcher.ResponseData['body']): void {
  if (body.destroyed) return;
  body.on('error', () => undefined);
  body.destroy();
}

/**
 * Reads what is left of a body after the answer, bounded in bytes and time, so that its
 * connection goes back to the pool. A timer rather than `AbortSignal.timeout`: on Node 20 that
 * signal costs more than the rest of the drain, and it fires (building a DOMException) even after
 * the drain has finished.
 */
function drainInBackground(body: Dispatcher.ResponseData['body']): void {
  const deadline = setTimeout(() => body.destroy(), END_AFTER_ANSWER_MS).unref();
  void body
    .dump({ limit: MAX_BYTES_AFTER_ANSWER })
    .catch(() => undefined)
    .finally(() => clearTimeout(deadline));
}
