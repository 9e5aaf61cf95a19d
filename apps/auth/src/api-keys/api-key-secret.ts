import { apiKeyHash } from '@gw/contracts';
import { randomBytes } from 'node:crypto';

export const API_KEY_PREFIX = 'sk-gw-';
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** 43 base62 characters carry 256 bits, as many as 32 random bytes. */
const SECRET_LENGTH = 43;
/** The largest multiple of 62 below 256: bytes at or above it are dropped so every character is equally likely. */
const UNBIASED_LIMIT = 248;
export const API_KEY_SHORT_LENGTH = 6;

export interface GeneratedApiKey {
  key: string;
  keyHash: string;
  short: string;
}

export function generateApiKey(): GeneratedApiKey {
  let secret = '';
  while (secret.length < SECRET_LENGTH) {
    for (const byte of randomBytes(SECRET_LENGTH)) {
      if (byte < UNBIASED_LIMIT && secret.length < SECRET_LENGTH) secret += ALPHABET[byte % ALPHABET.length];
    }
  }
  const key = API_KEY_PREFIX + secret;
  return { key, keyHash: apiKeyHash(key), short: apiKeyShort(key) };
}

export function apiKeyShort(key: string): string {
  return key.slice(-API_KEY_SHORT_LENGTH);
}
