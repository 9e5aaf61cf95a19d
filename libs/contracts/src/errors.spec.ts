import { DomainError, ERROR_CODE_TABLE, ERROR_CODES, isRpcErrorPayload } from './errors';

describe('the error contract', () => {
  it('gives every code a status in the 4xx/5xx range and an envelope type', () => {
    for (const code of ERROR_CODES) {
      expect(ERROR_CODE_TABLE[code].status).toBeGreaterThanOrEqual(400);
      expect(ERROR_CODE_TABLE[code].status).toBeLessThan(600);
    }
  });

  it.each([
    ['invalid_request', 400],
    ['unauthorized', 401],
    ['insufficient_balance', 402],
    ['spending_limit_exceeded', 402],
    ['forbidden', 403],
    ['not_found', 404],
    ['payload_too_large', 413],
    ['rate_limited', 429],
    ['upstream_rate_limited', 429],
    ['upstream_error', 502],
    ['upstream_overloaded', 503],
    ['no_provider_available', 503],
    ['upstream_timeout', 504],
  ] as const)('maps %s to %i as DESIGN.md §5.1 fixes', (code, status) => {
    expect(new DomainError(code, 'x').status).toBe(status);
  });

  it("carries a provider's Retry-After across a JSON round trip, and none where it has none", () => {
    const limited = new DomainError('upstream_rate_limited', 'limited', null, 7);
    const restored = DomainError.fromPayload(JSON.parse(JSON.stringify(limited.toPayload())));
    expect(restored).toMatchObject({ code: 'upstream_rate_limited', status: 429, retryAfterSeconds: 7 });
    const plain = JSON.parse(JSON.stringify(new DomainError('upstream_error', 'x').toPayload()));
    expect(plain).not.toHaveProperty('retryAfterSeconds');
    expect(DomainError.fromPayload(plain).retryAfterSeconds).toBeNull();
  });

  it('survives a JSON round trip as a payload', () => {
    const original = new DomainError(
      'invalid_request',
      'temperature must not be greater than 2',
      'temperature',
    );
    const payload = JSON.parse(JSON.stringify(original.toPayload()));
    expect(isRpcErrorPayload(payload)).toBe(true);
    const restored = DomainError.fromPayload(payload);
    expect(restored).toMatchObject({
      code: 'invalid_request',
      param: 'temperature',
      status: 400,
      message: original.message,
    });
  });

  it('does not take an arbitrary object or an unknown code for a payload', () => {
    expect(isRpcErrorPayload({ status: 'error', message: 'Internal server error' })).toBe(false);
    expect(isRpcErrorPayload({ code: 'teapot', message: 'x' })).toBe(false);
    expect(isRpcErrorPayload(null)).toBe(false);
  });
});
