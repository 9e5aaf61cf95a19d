import { DomainError, ERROR_CODES, type ErrorCode, type MediaGeneration } from '@gw/contracts';

/**
 * A generation's error codes in the HTTP-status style (`BAD_GATEWAY`) as the gateway's own codes;
 * the provider's limits and overload are the provider's, not the gateway's.
 */
const STATUS_STYLE_CODES: Readonly<Record<string, ErrorCode>> = {
  BAD_REQUEST: 'invalid_request',
  CONTENT_FILTER: 'invalid_request',
  RATE_LIMITED: 'upstream_rate_limited',
  TOO_MANY_REQUESTS: 'upstream_rate_limited',
  SERVICE_UNAVAILABLE: 'upstream_overloaded',
  BAD_GATEWAY: 'upstream_error',
  GATEWAY_TIMEOUT: 'upstream_timeout',
  TIMEOUT: 'upstream_timeout',
};

/** What no failed generation is answered with: a job's own defect is still the provider side's failure to the client, never a 500. */
const NEVER_ANSWERED: ReadonlySet<ErrorCode> = new Set(['internal_error']);

/** The gateway's code for a failed generation's `error.code`: a known code as it is, else the provider failed (502). */
export function errorCodeOfGeneration(code: string | undefined): ErrorCode {
  if (code === undefined) return 'upstream_error';
  const statusStyle = STATUS_STYLE_CODES[code.toUpperCase()];
  if (statusStyle !== undefined) return statusStyle;
  const known = ERROR_CODES.find((candidate) => candidate === code.toLowerCase());
  return known !== undefined && !NEVER_ANSWERED.has(known) ? known : 'upstream_error';
}

/**
 * The error a route that answers a result (images, speech) gives for a generation that ended
 * without one: a failed one with the status its error calls for (a provider's failure 502, its
 * timeout 504, its refusal 400), naming the generation and its own code; a cancelled one 409.
 */
export function generationFailure(generation: MediaGeneration): DomainError {
  if (generation.status === 'cancelled')
    return new DomainError('conflict', `Generation ${generation.id} was cancelled before it finished`);
  const error = generation.error;
  const reason = error ? `${error.code}: ${error.message}` : 'no reason given';
  return new DomainError(
    errorCodeOfGeneration(error?.code),
    `Generation ${generation.id} failed (${reason})`,
  );
}
