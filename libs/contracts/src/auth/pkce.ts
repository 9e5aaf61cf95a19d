import { createHash, timingSafeEqual } from 'node:crypto';

/** RFC 7636 §4.1: 43 to 128 characters of the unreserved set. */
const CODE_VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
/** The interface: BASE64URL(SHA256(code_verifier)), 43 to 128 characters of the base64url alphabet, no padding. */
const CODE_CHALLENGE = /^[A-Za-z0-9\-_]{43,128}$/;

export function isCodeVerifier(value: string): boolean {
  return CODE_VERIFIER.test(value);
}

export function isCodeChallenge(value: string): boolean {
  return CODE_CHALLENGE.test(value);
}

/** The S256 transformation: BASE64URL-ENCODE(SHA256(ASCII(code_verifier))). */
export function s256Challenge(codeVerifier: string): string {
  return createHash('sha256').update(codeVerifier, 'ascii').digest('base64url');
}

/**
 * Whether the verifier belongs to the challenge. Both sides are hashed to equal length before a
 * constant-time comparison, so neither the verifier's length nor the position of the first
 * differing character shows in the time taken.
 */
export function verifierMatchesChallenge(codeVerifier: string, codeChallenge: string): boolean {
  if (!isCodeVerifier(codeVerifier)) return false;
  const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();
  return timingSafeEqual(digest(s256Challenge(codeVerifier)), digest(codeChallenge));
}
