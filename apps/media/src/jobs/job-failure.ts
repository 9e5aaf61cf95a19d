import { UpstreamFailure } from '@gw/paid-generation';

/** A failed generation's `error`: a code named after what went wrong (the interface's sample is BAD_GATEWAY). */
export interface JobError {
  code: string;
  message: string;
}

/** What the client of a failed generation is told about a provider call that failed. */
export function providerJobError(failure: UpstreamFailure): JobError {
  if (failure.kind === 'timeout')
    return { code: 'GATEWAY_TIMEOUT', message: 'The provider did not answer in time' };
  switch (failure.errorClass) {
    case 'refused': {
      const reason = failure.providerError?.message ?? `HTTP ${failure.httpStatus}`;
      return {
        code: 'INVALID_REQUEST',
        message: `The provider refused the request: ${reason.slice(0, 1_000)}`,
      };
    }
    case 'rate_limited':
      return { code: 'RATE_LIMITED', message: 'The provider is rate limiting requests' };
    case 'overloaded':
      return { code: 'SERVICE_UNAVAILABLE', message: 'The provider is overloaded' };
    case 'failed':
    case 'unauthorized': {
      const status = failure.httpStatus ? ` (HTTP ${failure.httpStatus})` : '';
      return { code: 'BAD_GATEWAY', message: `The provider failed${status}` };
    }
  }
}

export const JOB_ERRORS = {
  interrupted: {
    code: 'INTERRUPTED',
    message:
      'The media service stopped while the provider was working on this generation, and its answer was lost; nothing was charged',
  },
  deadline: { code: 'GATEWAY_TIMEOUT', message: 'The generation did not finish in time' },
  notStored: { code: 'STORAGE_FAILED', message: 'The result could not be stored' },
  sourceGone: {
    code: 'NOT_FOUND',
    message: 'The generation this operation continues is no longer available',
  },
} as const satisfies Record<string, JobError>;

/** A provider's video job that ended `failed`. */
export function providerJobFailed(error: { code: string | null; message: string | null } | null): JobError {
  return { code: 'GENERATION_FAILED', message: error?.message ?? 'The provider could not make this video' };
}

export function isUpstreamFailure(err: unknown): err is UpstreamFailure {
  return err instanceof UpstreamFailure;
}
