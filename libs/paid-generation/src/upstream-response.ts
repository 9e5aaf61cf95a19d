import { type Dispatcher } from 'undici';
import { providerErrorOf, toUpstreamFailure, UpstreamFailure } from './upstream-failure';

/** A provider's answer as undici gives it. */
type UpstreamResponse = Dispatcher.ResponseData;

/**
 * A provider's answer outside 2xx as the failure the fallback decides on: its status, its
 * `Retry-After` and its error object, on either wire. Reads (and so frees) the body.
 */
export async function upstreamStatusFailure(response: UpstreamResponse): Promise<UpstreamFailure> {
  const text = await response.body.text().catch(() => '');
  return new UpstreamFailure(
    'status',
    `Upstream answered ${response.statusCode}: ${text.slice(0, 300)}`,
    response.statusCode,
    {
      retryAfterSeconds: retryAfterSeconds(response.headers),
      providerError: providerErrorOf(parseJson(text)),
    },
  );
}

/** The JSON body of a provider's 2xx answer; a body that is not JSON is a protocol failure. */
export async function upstreamJson<T>(response: UpstreamResponse): Promise<T> {
  try {
    return (await response.body.json()) as T;
  } catch (err) {
    throw err instanceof SyntaxError
      ? new UpstreamFailure('protocol', 'Upstream answered invalid JSON')
      : toUpstreamFailure(err);
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** The longest wait a provider's `Retry-After` is passed on with. */
const MAX_RETRY_AFTER_SECONDS = 3_600;

/**
 * A provider's `Retry-After` in whole seconds (at least one): delta-seconds or an HTTP date, or
 * OpenAI's `retry-after-ms`; null when it sent none that can be read.
 */
export function retryAfterSeconds(headers: UpstreamResponse['headers']): number | null {
  const header = (name: string) => {
    const value = headers[name];
    return Array.isArray(value) ? value[0] : value;
  };
  const ms = Number(header('retry-after-ms'));
  const value = header('retry-after')?.trim();
  let seconds: number | null = null;
  if (Number.isFinite(ms) && ms > 0) seconds = ms / 1_000;
  else if (value && /^\d+(\.\d+)?$/.test(value)) seconds = Number(value);
  else if (value && !Number.isNaN(Date.parse(value))) seconds = (Date.parse(value) - Date.now()) / 1_000;
  if (seconds === null) return null;
  return Math.min(MAX_RETRY_AFTER_SECONDS, Math.max(1, Math.ceil(seconds)));
}
