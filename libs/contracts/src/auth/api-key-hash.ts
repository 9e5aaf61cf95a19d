import { createHash } from 'node:crypto';

/** What auth stores and what the gateway sends instead of the key: the SHA-256 hex digest. */
export function apiKeyHash(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}
