import { randomBytes } from 'node:crypto';
import { sseData } from '../support/gateway-http';

/** The kinds of request the mixed traffic sends while a fault happens. */
export const TRAFFIC_KINDS = ['chat', 'stream', 'embedding', 'upload', 'media'] as const;
export type TrafficKind = (typeof TRAFFIC_KINDS)[number];

/**
 * The longest a client may wait for one request, whatever the fault: the gateway's RPC timeout
 * (RPC_TIMEOUT_MS, 10 s) plus both chat providers' upstream timeout (UPSTREAM_TIMEOUT_MS, 3 s in
 * the suite) plus the longest outage a row injects (8 s), with slack for a loaded two-core machine.
 */
export const REQUEST_BOUND_MS = 30_000;
/** A media job, from its creation to a final status read by polling: the synchronous bound plus the job's own run. */
export const MEDIA_JOB_BOUND_MS = 60_000;
/** A client that hears 429 waits what Retry-After says, but no longer than this. */
const MAX_RETRY_AFTER_MS = 10_000;

export type Verdict = 'succeeded' | 'failed' | 'lost';

/** What one request of the traffic came to, as its client saw it. */
export interface Outcome {
  kind: TrafficKind;
  gateway: string;
  startedAt: number;
  endedAt: number;
  verdict: Verdict;
  /** Why, in a few words: `200`, `503 service_unavailable`, `error event upstream_error`, `silent cut`… */
  detail: string;
  /** Whether the request carried the row's fault marker. */
  marked: boolean;
  /** The generation the client saw, complete (succeeded) or partly (a stream ended by an error event). */
  generationId?: string;
  /** The cost the client was told, in roubles (`usage.cost_rub`). */
  toldCost?: number;
  /** The stored file of a succeeded upload. */
  fileId?: string;
  /** The Retry-After of a 429, in seconds. */
  retryAfter?: number | null;
  status?: number;
}

export interface TrafficOptions {
  apiKey: string;
  /** The gateways a load balancer spreads the traffic over now (read before every request). */
  gateways: () => string[];
  /** The fault marker a request of this kind carries now (empty outside the fault window). */
  marker: (kind: TrafficKind) => string;
  /** Whether the gateway `url` was down (killed, not yet back) at some time in [from, to]. */
  gatewayWasDown: (url: string, from: number, to: number) => boolean;
}

/** How many requests of each kind run at once. */
const WORKERS: Record<TrafficKind, number> = { chat: 2, stream: 2, embedding: 1, upload: 1, media: 1 };
/** The pause of a worker between two requests: a small steady load on a shared two-core machine. */
const PAUSE_MS = 250;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Attempt =
  | { type: 'response'; status: number; text: string; headers: Headers }
  | { type: 'transport'; message: string }
  | { type: 'timeout' };

/** A request read to its end (the whole SSE stream), or how it broke. */
async function attempt(url: string, init: RequestInit, boundMs: number): Promise<Attempt> {
  try {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(boundMs) });
    const text = await response.text();
    return { type: 'response', status: response.status, text, headers: response.headers };
  } catch (err) {
    const error = err as Error & { cause?: { code?: string; message?: string } };
    if (error.name === 'TimeoutError') return { type: 'timeout' };
    return { type: 'transport', message: error.cause?.code ?? error.cause?.message ?? error.message };
  }
}

function parse(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The gateway's error envelope: `{error: {message, type, code}}`. */
function isEnvelope(body: any): boolean {
  return typeof body?.error?.message === 'string' && typeof body?.error?.type === 'string';
}

/**
 * The mixed traffic of one row: plain and streamed chats, embeddings, uploads and media jobs, each
 * kind from its own workers in a loop until stopped. Every request is classified as its client
 * sees it; nothing is retried except after a 429, and only once its Retry-After has passed.
 */
export class Traffic {
  readonly outcomes: Outcome[] = [];
  private running = false;
  private workers: Array<Promise<void>> = [];
  private turn = 0;
  private sequence = 0;
  /** The kinds of the requests in flight now, one entry per request. */
  private readonly pending = new Map<number, TrafficKind>();

  constructor(private readonly options: TrafficOptions) {}

  start(): void {
    this.running = true;
    for (const kind of TRAFFIC_KINDS)
      for (let i = 0; i < WORKERS[kind]; i++) this.workers.push(this.worker(kind));
  }

  /** The requests in flight now, by kind. */
  inFlight(): TrafficKind[] {
    return [...this.pending.values()];
  }

  /** Stops sending and resolves once every request in flight has ended (each within its bound). */
  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.workers);
  }

  private async worker(kind: TrafficKind): Promise<void> {
    // Spread the workers' first requests a little, so that they do not march in step.
    await sleep(Math.random() * PAUSE_MS);
    while (this.running) {
      const ticket = ++this.sequence;
      this.pending.set(ticket, kind);
      const outcome = await this.send(kind, ticket);
      this.pending.delete(ticket);
      this.outcomes.push(outcome);
      const wait =
        outcome.status === 429 ? Math.min((outcome.retryAfter ?? 1) * 1000, MAX_RETRY_AFTER_MS) : PAUSE_MS;
      await sleep(wait);
    }
  }

  private nextGateway(): string {
    const gateways = this.options.gateways();
    return gateways[this.turn++ % gateways.length];
  }

  private async send(kind: TrafficKind, n: number): Promise<Outcome> {
    const gateway = this.nextGateway();
    const marker = this.options.marker(kind);
    const startedAt = Date.now();
    const base = { kind, gateway, startedAt, marked: marker !== '' };
    const finish = (fields: Omit<Outcome, 'kind' | 'gateway' | 'startedAt' | 'marked' | 'endedAt'>) => ({
      ...base,
      endedAt: Date.now(),
      ...fields,
    });
    switch (kind) {
      case 'chat': {
        const result = await this.post(gateway, '/v1/chat/completions', {
          model: 'demo/chat',
          messages: [{ role: 'user', content: `[[delay:300]] a plain answer number ${n} ${marker}` }],
        });
        return finish(
          this.classifyJson(result, base, (body) => {
            const content = body?.choices?.[0]?.message?.content;
            if (typeof content !== 'string' || content === '') return null;
            return { generationId: body.id, toldCost: body.usage?.cost_rub };
          }),
        );
      }
      case 'stream': {
        const result = await this.post(gateway, '/v1/chat/completions', {
          model: 'demo/chat',
          stream: true,
          stream_options: { include_usage: true },
          messages: [{ role: 'user', content: `[[slow:80]] a streamed answer number ${n} ${marker}` }],
        });
        return finish(this.classifyStream(result, base));
      }
      case 'embedding': {
        const result = await this.post(gateway, '/v1/embeddings', {
          model: 'demo/embed-small',
          input: `an embedding number ${n} ${marker}`,
        });
        return finish(
          this.classifyJson(result, base, (body) => {
            const vector = body?.data?.[0]?.embedding;
            if (!Array.isArray(vector) || vector.length === 0) return null;
            return { generationId: body.id, toldCost: body.usage?.cost_rub };
          }),
        );
      }
      case 'upload': {
        const form = new FormData();
        const png = Buffer.concat([
          Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'),
          randomBytes(2000),
        ]);
        form.append('file', new Blob([png]), `fault-${n}.png`);
        const result = await attempt(
          `${gateway}/v1/storage/files`,
          { method: 'POST', headers: this.auth(), body: form },
          REQUEST_BOUND_MS,
        );
        return finish(
          this.classifyJson(result, base, (body, status) => {
            if (status !== 201 || typeof body?.id !== 'string' || body.size !== png.length) return null;
            return { fileId: body.id };
          }),
        );
      }
      case 'media':
        return finish(await this.mediaJob(gateway, n, base));
    }
  }

  private auth(): Record<string, string> {
    return { authorization: `Bearer ${this.options.apiKey}` };
  }

  private post(gateway: string, path: string, body: unknown): Promise<Attempt> {
    return attempt(
      `${gateway}${path}`,
      {
        method: 'POST',
        headers: { ...this.auth(), 'content-type': 'application/json' },
        body: JSON.stringify(body),
      },
      REQUEST_BOUND_MS,
    );
  }

  /** A request that broke off before an answer: cleanly only when its gateway process died meanwhile. */
  private broken(result: Attempt, base: { gateway: string; startedAt: number }) {
    if (result.type === 'timeout') return { verdict: 'lost' as const, detail: 'hung past its bound' };
    const message = result.type === 'transport' ? result.message : '';
    if (this.options.gatewayWasDown(base.gateway, base.startedAt, Date.now()))
      return { verdict: 'failed' as const, detail: `gateway died (${message})` };
    return { verdict: 'lost' as const, detail: `connection broke (${message})` };
  }

  /** An error answer: clean with the envelope (any status), lost without it. */
  private refused(status: number, text: string, headers: Headers) {
    const body = parse(text);
    const retryAfter = headers.get('retry-after');
    const fields = { status, retryAfter: retryAfter === null ? null : Number(retryAfter) };
    if (isEnvelope(body))
      return {
        ...fields,
        verdict: 'failed' as const,
        detail: `${status} ${body.error.code ?? body.error.type}`,
      };
    return { ...fields, verdict: 'lost' as const, detail: `${status} without the error envelope` };
  }

  private classifyJson(
    result: Attempt,
    base: { gateway: string; startedAt: number },
    accept: (body: any, status: number) => Partial<Outcome> | null,
  ): Omit<Outcome, 'kind' | 'gateway' | 'startedAt' | 'marked' | 'endedAt'> {
    if (result.type !== 'response') return this.broken(result, base);
    if (result.status >= 400) return this.refused(result.status, result.text, result.headers);
    const accepted = accept(parse(result.text), result.status);
    if (!accepted)
      return { status: result.status, verdict: 'lost', detail: `${result.status} without content` };
    return { status: result.status, verdict: 'succeeded', detail: String(result.status), ...accepted };
  }

  /**
   * A stream succeeded when it ends with `[DONE]` after content and its usage; it failed cleanly
   * when its last event is an error; anything else (a stream that just stops) is a silent cut.
   */
  private classifyStream(
    result: Attempt,
    base: { gateway: string; startedAt: number },
  ): Omit<Outcome, 'kind' | 'gateway' | 'startedAt' | 'marked' | 'endedAt'> {
    if (result.type !== 'response') return this.broken(result, base);
    if (result.status !== 200) return this.refused(result.status, result.text, result.headers);
    const data = sseData(result.text);
    const chunks = data.filter((d) => d !== '[DONE]').map(parse);
    const generationId = chunks.find((chunk) => typeof chunk?.id === 'string')?.id as string | undefined;
    const last = data.at(-1);
    const lastChunk = chunks.at(-1);
    if (last !== '[DONE]' && isEnvelope(lastChunk))
      return {
        status: 200,
        verdict: 'failed',
        detail: `error event ${lastChunk.error.code ?? lastChunk.error.type}`,
        generationId,
      };
    if (last !== '[DONE]') return { status: 200, verdict: 'lost', detail: 'silent cut', generationId };
    const content = chunks.map((chunk) => chunk?.choices?.[0]?.delta?.content ?? '').join('');
    const usage = chunks.find((chunk) => chunk?.usage)?.usage;
    if (content === '' || chunks.some((chunk) => chunk?.error) || !usage)
      return {
        status: 200,
        verdict: 'lost',
        detail: '[DONE] without content, usage or with an error',
        generationId,
      };
    return { status: 200, verdict: 'succeeded', detail: '200', generationId, toldCost: usage.cost_rub };
  }

  /** A media job: created asynchronously, then polled until it is final or its bound has passed. */
  private async mediaJob(
    gateway: string,
    n: number,
    base: { gateway: string; startedAt: number },
  ): Promise<Omit<Outcome, 'kind' | 'gateway' | 'startedAt' | 'marked' | 'endedAt'>> {
    const created = await this.post(gateway, '/v1/media', {
      model: 'demo/image',
      params: { prompt: `[[delay:500]] an image number ${n}`, size: '256x256' },
      async: true,
    });
    if (created.type !== 'response') return this.broken(created, base);
    if (created.status >= 400) return this.refused(created.status, created.text, created.headers);
    const id = parse(created.text)?.id;
    if (typeof id !== 'string')
      return { status: created.status, verdict: 'lost', detail: 'no generation id' };
    const deadline = base.startedAt + MEDIA_JOB_BOUND_MS;
    // The job lives on whatever happens to the gateway that created it: poll any that serves now.
    while (Date.now() < deadline) {
      await sleep(300);
      const polled = await attempt(
        `${this.nextGateway()}/v1/media/${id}`,
        { headers: this.auth() },
        Math.max(1, deadline - Date.now()),
      );
      if (polled.type !== 'response' || polled.status !== 200) continue;
      const generation = parse(polled.text);
      if (generation?.status === 'completed') {
        if (!Array.isArray(generation.data) || typeof generation.data[0]?.url !== 'string')
          return { status: 200, verdict: 'lost', detail: 'completed without a file', generationId: id };
        return {
          status: 200,
          verdict: 'succeeded',
          detail: 'completed',
          generationId: id,
          toldCost: generation.usage?.cost_rub,
        };
      }
      if (generation?.status === 'failed' || generation?.status === 'cancelled')
        return {
          status: 200,
          verdict: 'failed',
          detail: `job ${generation.status} ${generation.error?.code ?? ''}`.trim(),
          generationId: id,
        };
    }
    return { verdict: 'lost', detail: 'job not final within its bound', generationId: id };
  }
}
