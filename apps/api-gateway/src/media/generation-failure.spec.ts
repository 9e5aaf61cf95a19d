import type { MediaGeneration } from '@gw/contracts';
import { errorCodeOfGeneration, generationFailure } from './generation-failure';

const ended = (status: MediaGeneration['status'], error?: MediaGeneration['error']): MediaGeneration => ({
  id: 'gen-1',
  object: 'media.generation',
  status,
  created: 1_763_830_000,
  model: 'demo/image',
  ...(error ? { error } : {}),
});

describe('the error of a generation that ended without a result', () => {
  it.each([
    ['BAD_GATEWAY', 'upstream_error', 502],
    ['GATEWAY_TIMEOUT', 'upstream_timeout', 504],
    ['TIMEOUT', 'upstream_timeout', 504],
    ['SERVICE_UNAVAILABLE', 'upstream_overloaded', 503],
    ['RATE_LIMITED', 'upstream_rate_limited', 429],
    ['INVALID_REQUEST', 'invalid_request', 400],
    ['INVALID_MODEL', 'invalid_model', 400],
    ['NOT_FOUND', 'not_found', 404],
    ['STORAGE_FAILED', 'upstream_error', 502],
    ['TOO_MANY_REQUESTS', 'upstream_rate_limited', 429],
    ['CONTENT_FILTER', 'invalid_request', 400],
    ['upstream_timeout', 'upstream_timeout', 504],
    ['UPSTREAM_ERROR', 'upstream_error', 502],
    ['storage_quota_exceeded', 'storage_quota_exceeded', 413],
    ['internal_error', 'upstream_error', 502],
    ['SOMETHING_NEW', 'upstream_error', 502],
  ])('answers a failure coded %s as %s (%i)', (code, expected, status) => {
    expect(errorCodeOfGeneration(code)).toBe(expected);
    const error = generationFailure(ended('failed', { code, message: 'The provider failed' }));
    expect(error.code).toBe(expected);
    expect(error.status).toBe(status);
    expect(error.message).toBe(`Generation gen-1 failed (${code}: The provider failed)`);
  });

  it('answers a failure without an error as the provider failing', () => {
    expect(generationFailure(ended('failed'))).toMatchObject({
      code: 'upstream_error',
      message: 'Generation gen-1 failed (no reason given)',
    });
  });

  it('answers a cancelled generation 409', () => {
    expect(generationFailure(ended('cancelled'))).toMatchObject({ code: 'conflict', status: 409 });
  });
});
