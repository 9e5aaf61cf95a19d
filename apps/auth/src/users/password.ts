import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

/**
 * log2 of scrypt's N in new hashes: 2^17 with r=8, p=1 is OWASP's recommendation (128 MB and
 * about 0.3–1 s per hash here). Tests may lower it through PASSWORD_HASH_COST; production never does.
 */
export const PASSWORD_HASH_COST = 17;
const BLOCK_SIZE = 8;
const PARALLELISM = 1;
const KEY_LENGTH = 64;
const SALT_BYTES = 16;
/** A stored hash asking for more than this is not one of ours; refusing it bounds what one login may cost. */
const MAX_STORED_COST = 20;
const MAX_STORED_BLOCKS = 16;

interface ScryptParams {
  N: number;
  r: number;
  p: number;
}

/** Self-describing `scrypt$N$r$p$salt$hash` (base64), so the cost can be raised without breaking old hashes. */
export async function hashPassword(password: string, cost = PASSWORD_HASH_COST): Promise<string> {
  const params = { N: 2 ** cost, r: BLOCK_SIZE, p: PARALLELISM };
  const salt = randomBytes(SALT_BYTES);
  const hash = await derive(password, salt, params, KEY_LENGTH);
  return ['scrypt', params.N, params.r, params.p, salt.toString('base64'), hash.toString('base64')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parseHash(stored);
  if (!parsed) return false;
  const actual = await derive(password, parsed.salt, parsed.params, parsed.hash.length);
  return timingSafeEqual(actual, parsed.hash);
}

/** True when a stored hash is weaker than new ones would be: it is replaced at the next successful login. */
export function needsRehash(stored: string, cost = PASSWORD_HASH_COST): boolean {
  const parsed = parseHash(stored);
  if (!parsed) return true;
  return parsed.params.N < 2 ** cost || parsed.params.r < BLOCK_SIZE || parsed.params.p < PARALLELISM;
}

/** A valid hash of no one's password, verified when the email is unknown so both failures take as long. */
export function decoyPasswordHash(cost = PASSWORD_HASH_COST): string {
  return `scrypt$${2 ** cost}$${BLOCK_SIZE}$${PARALLELISM}$AAAAAAAAAAAAAAAAAAAAAA==$${Buffer.alloc(KEY_LENGTH).toString('base64')}`;
}

function parseHash(stored: string): { params: ScryptParams; salt: Buffer; hash: Buffer } | null {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  const params = { N: Number(n), r: Number(r), p: Number(p) };
  if (scheme !== 'scrypt' || !salt || !hash) return null;
  if (![params.N, params.r, params.p].every((v) => Number.isSafeInteger(v) && v > 0)) return null;
  if (params.N > 2 ** MAX_STORED_COST || params.r * params.p > MAX_STORED_BLOCKS) return null;
  return { params, salt: Buffer.from(salt, 'base64'), hash: Buffer.from(hash, 'base64') };
}

function derive(password: string, salt: Buffer, params: ScryptParams, length: number): Promise<Buffer> {
  // scrypt needs about 128·N·r·p bytes and Node refuses to go above maxmem (32 MB unless told).
  const maxmem = 2 * 128 * params.N * params.r * params.p;
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, length, { ...params, maxmem }, (err, key) =>
      err ? reject(err) : resolve(key),
    ),
  );
}
