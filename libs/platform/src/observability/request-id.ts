import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';

/** The HTTP header a client may name its request by, and the gateway answers with. */
export const REQUEST_ID_HEADER = 'x-request-id';
/** The NATS header that carries the request id from the gateway to every service it calls. */
export const NATS_REQUEST_ID_HEADER = 'Gw-Request-Id';

/** What a client's id may be: short, and nothing a log line or a header could be broken by. */
const WELL_FORMED_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The id of the request the current code runs for, as far as its async calls reach. */
export const requestIds = new AsyncLocalStorage<string>();

/** The client's id when well formed, else a new one. */
export function acceptRequestId(value: unknown): string {
  return typeof value === 'string' && WELL_FORMED_REQUEST_ID.test(value) ? value : randomUUID();
}

export function currentRequestId(): string | undefined {
  return requestIds.getStore();
}
