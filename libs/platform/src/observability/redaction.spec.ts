import { redactSecrets } from './redaction';

describe('redactSecrets', () => {
  it.each([
    ['NATS at nats://gw-user:s3cret-pass@nats:4222 (NATS_URL)', 's3cret-pass'],
    ['NATS at nats://a-token-only@nats:4222', 'a-token-only'],
    ['key sk-gw-AbCdEf0123456789xyz refused', 'AbCdEf0123456789xyz'],
    ['jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl seen', 'c2lnbmF0dXJl'],
    ['authorization: Bearer opaque-admin-token-value', 'opaque-admin-token-value'],
    ['login with password=hunter22 failed', 'hunter22'],
    ['GET https://s3/bucket/f?X-Amz-Credential=AKIA123&X-Amz-Signature=abcdef0123 ok', 'abcdef0123'],
    ['GET /api/files/f?expires=1&signature=deadbeefcafe', 'deadbeefcafe'],
  ])('takes the secret out of %s', (line, secret) => {
    const redacted = redactSecrets(line);
    expect(redacted).not.toContain(secret);
    expect(redacted).toContain('redacted');
  });

  it('leaves a line without secrets as it was', () => {
    const line = 'inference serving on NATS nats://127.0.0.1:4222 (queue inference)';
    expect(redactSecrets(line)).toBe(line);
  });
});
