import { type LookupAddress, type LookupAllOptions, lookup as dnsLookup } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { Agent, type Dispatcher, errors, request } from 'undici';
import { DomainError } from '@gw/contracts';
import { MAX_AUDIO_BYTES } from '@gw/dto';
import { isForbiddenAddress } from './address-policy';

const MAX_REDIRECTS = 3;
const FORBIDDEN_CODE = 'ERR_GW_FORBIDDEN_ADDRESS';

/** Every address a host name has, in the shape of `dns.lookup(hostname, {...options, all: true}, callback)`. */
export type LookupAll = (
  hostname: string,
  options: LookupAllOptions,
  callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

export interface AudioUrlFetcherOptions {
  /** Host names or addresses fetched whatever they resolve to (TRANSCRIPTION_URL_ALLOW_HOSTS). */
  allowHosts: Set<string>;
  timeoutMs: number;
  maxBytes?: number;
  /**
   * How host names resolve: `dns.lookup` (the system's resolver) unless a test points it at a DNS
   * stub. Whatever it answers is checked, and the connection is made to exactly those addresses.
   */
  lookup?: LookupAll;
}

/**
 * Fetches a transcription's `file` URL without letting a client aim the gateway at its own network:
 * only http(s), every address a host resolves to is checked at connect time (so a DNS answer cannot
 * change between check and use), redirects are followed by hand and checked the same way, and time
 * and size are bounded.
 */
export class AudioUrlFetcher {
  private readonly agent: Agent;
  private readonly maxBytes: number;

  constructor(private readonly options: AudioUrlFetcherOptions) {
    this.maxBytes = options.maxBytes ?? MAX_AUDIO_BYTES;
    this.agent = new Agent({
      connect: { lookup: this.guardedLookup(), timeout: options.timeoutMs },
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
    });
  }

  async fetch(url: string): Promise<{ bytes: Buffer; filename: string }> {
    const signal = AbortSignal.timeout(this.options.timeoutMs);
    let target = this.checkedUrl(url);
    for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
      let response;
      try {
        response = await abortable(
          request(target, { method: 'GET', dispatcher: this.agent, signal }),
          signal,
        );
      } catch (err) {
        throw this.fetchError(err);
      }
      const location = response.headers['location'];
      if (response.statusCode >= 300 && response.statusCode < 400 && typeof location === 'string') {
        response.body.resume();
        target = this.checkedUrl(new URL(location, target).toString());
        continue;
      }
      if (response.statusCode < 200 || response.statusCode >= 300) {
        response.body.resume();
        throw new DomainError('invalid_request', `The file URL answered HTTP ${response.statusCode}`, 'file');
      }
      const declared = Number(response.headers['content-length']);
      if (Number.isFinite(declared) && declared > this.maxBytes) {
        // Destroying the body emits an abort error nobody else listens for.
        response.body.on('error', () => undefined).destroy();
        throw tooLarge(this.maxBytes);
      }
      return { bytes: await this.read(response.body, signal), filename: filenameOf(target) };
    }
    throw new DomainError(
      'invalid_request',
      `The file URL redirected more than ${MAX_REDIRECTS} times`,
      'file',
    );
  }

  close(): Promise<void> {
    return this.agent.close();
  }

  /** Leaving the loop early (too large) destroys the body through the iterator. */
  private async read(body: AsyncIterable<Buffer>, signal: AbortSignal): Promise<Buffer> {
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of body) {
        size += chunk.length;
        if (size > this.maxBytes) throw tooLarge(this.maxBytes);
        chunks.push(chunk);
      }
    } catch (err) {
      if (err instanceof DomainError) throw err;
      throw this.fetchError(signal.aborted ? signal.reason : err);
    }
    return Buffer.concat(chunks);
  }

  /** Only http(s); a literal address is checked here, as the connect-time lookup is skipped for it. */
  private checkedUrl(raw: string): string {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new DomainError('invalid_request', 'file must be a base64 data URL or an http(s) URL', 'file');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new DomainError('invalid_request', 'The file URL must use http or https', 'file');
    if (url.username || url.password)
      throw new DomainError('invalid_request', 'The file URL must not carry credentials', 'file');
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
    if (isIP(host) !== 0 && !this.options.allowHosts.has(host) && isForbiddenAddress(host))
      throw forbidden(host);
    return url.toString();
  }

  private guardedLookup(): LookupFunction {
    const allow = this.options.allowHosts;
    const lookupAll: LookupAll =
      this.options.lookup ?? ((hostname, options, callback) => dnsLookup(hostname, options, callback));
    return (hostname, options, callback) => {
      lookupAll(hostname, { ...options, all: true }, (err, addresses) => {
        if (err) return callback(err, '', 0);
        if (addresses.length === 0)
          return callback(
            Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }),
            '',
            0,
          );
        const refused = addresses.find((entry) => isForbiddenAddress(entry.address));
        if (refused && !allow.has(hostname.toLowerCase())) {
          return callback(
            Object.assign(new Error(`${hostname} resolves to a forbidden address`), { code: FORBIDDEN_CODE }),
            '',
            0,
          );
        }
        if (options.all)
          return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
        callback(null, addresses[0].address, addresses[0].family);
      });
    };
  }

  private fetchError(err: unknown): DomainError {
    const code = (err as { code?: string })?.code ?? (err as { cause?: { code?: string } })?.cause?.code;
    if (code === FORBIDDEN_CODE) return forbidden('the host');
    const name = (err as Error)?.name;
    if (
      name === 'TimeoutError' ||
      err instanceof errors.HeadersTimeoutError ||
      err instanceof errors.BodyTimeoutError ||
      err instanceof errors.ConnectTimeoutError
    ) {
      return new DomainError(
        'invalid_request',
        `The file URL did not answer within ${this.options.timeoutMs} ms`,
        'file',
      );
    }
    return new DomainError('invalid_request', 'The file URL could not be fetched', 'file');
  }
}

/**
 * `pending`, or the signal's reason as soon as it aborts. undici leaves an aborted request waiting
 * for the connection it queued on (a host name whose DNS server never answers holds it until the
 * connect timeout, rounded up to undici's timer resolution), so the time bound is kept here; the
 * request still ends by that timeout, and an answer arriving after the abort is thrown away.
 */
function abortable(
  pending: Promise<Dispatcher.ResponseData>,
  signal: AbortSignal,
): Promise<Dispatcher.ResponseData> {
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    pending.then(
      (response) => {
        signal.removeEventListener('abort', onAbort);
        if (signal.aborted) response.body.on('error', () => undefined).destroy();
        else resolve(response);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

function forbidden(host: string): DomainError {
  return new DomainError(
    'invalid_request',
    `The file URL points at ${host}, a loopback, private, link-local or metadata address, which is not fetched`,
    'file',
  );
}

function tooLarge(maxBytes: number): DomainError {
  return new DomainError(
    'payload_too_large',
    `The audio file is larger than ${maxBytes / 1024 / 1024} MB`,
    'file',
  );
}

function filenameOf(url: string): string {
  const last = new URL(url).pathname.split('/').filter(Boolean).at(-1);
  if (!last) return 'audio';
  try {
    return decodeURIComponent(last).slice(0, 255);
  } catch {
    return last.slice(0, 255);
  }
}
