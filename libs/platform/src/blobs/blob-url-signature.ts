import { createHmac, timingSafeEqual } from 'node:crypto';

/** The query of a signed gateway file URL: what is signed, and the signature. */
export interface SignedBlobQuery {
  expires: string;
  type: string;
  signature: string;
}

function sign(secret: string, key: string, expires: string, type: string): string {
  return createHmac('sha256', secret).update(`${key}\n${expires}\n${type}`).digest('base64url');
}

/** Query string that lets anyone read `key` as `type` until `expiresAt` (unix seconds). */
export function signBlobQuery(secret: string, key: string, type: string, expiresAt: Date): string {
  const expires = String(Math.floor(expiresAt.getTime() / 1000));
  return new URLSearchParams({ expires, type, signature: sign(secret, key, expires, type) }).toString();
}

/**
 * Whether a signed URL's query is genuine and not expired. Stateless (an HMAC with a secret every
 * replica has), so any gateway replica serves any URL; comparing in constant time.
 */
export function verifyBlobQuery(
  secret: string,
  key: string,
  query: Partial<Record<keyof SignedBlobQuery, unknown>>,
  now = new Date(),
): boolean {
  const { expires, type, signature } = query;
  if (typeof expires !== 'string' || typeof type !== 'string' || typeof signature !== 'string') return false;
  if (!/^\d{1,12}$/.test(expires) || Number(expires) * 1000 <= now.getTime()) return false;
  const expected = Buffer.from(sign(secret, key, expires, type));
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
