/**
 * Secrets a log line may carry by accident, each with what replaces it: credentials in a URL
 * (`nats://user:pass@host`, `nats://token@host`), the gateway's API keys, JWTs, bearer tokens, passwords and the
 * signature of a presigned URL. A line is scrubbed whole, so a secret quoted inside an error
 * message is caught as well as one in a field.
 */
const SECRETS: ReadonlyArray<[RegExp, string]> = [
  [/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@]+@/gi, '$1[redacted]@'],
  [/\bsk-[A-Za-z0-9_-]{8,}/g, 'sk-[redacted]'],
  [/\beyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g, '[redacted jwt]'],
  [/\b(Bearer\s+)\S+/gi, '$1[redacted]'],
  [/\b(password|passwd|secret|token)(["']?\s*[=:]\s*["']?)[^\s"'&,}]+/gi, '$1$2[redacted]'],
  [
    /([?&](?:X-Amz-Signature|X-Amz-Credential|X-Amz-Security-Token|signature|sig)=)[^&\s"']+/gi,
    '$1[redacted]',
  ],
];

/** Only a line that may hold a secret pays for the replacements. */
const MAY_HOLD_SECRET = /:\/\/|sk-|eyJ|bearer|pass|secret|token|sig/i;

export function redactSecrets(text: string): string {
  if (!MAY_HOLD_SECRET.test(text)) return text;
  let redacted = text;
  for (const [pattern, replacement] of SECRETS) redacted = redacted.replace(pattern, replacement);
  return redacted;
}
