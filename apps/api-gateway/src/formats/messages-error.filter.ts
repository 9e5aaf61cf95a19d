import { Catch } from '@nestjs/common';
import { type DomainError, messagesErrorType } from '@gw/contracts';
import { HttpErrorFilter } from '@gw/platform';

/** The path of the route; the checks made before routing answer it in its shape too. */
export const MESSAGES_PATH = '/api/v1/messages';

/**
 * `/v1/messages` answers errors in Anthropic's shape, a superset of the gateway's envelope
 * (DESIGN.md §5.1): `{type: 'error', error: {type, message, code, param}}` with Anthropic's error
 * type, which the Anthropic SDK reads into its own error classes.
 */
export function messagesErrorEnvelope(error: DomainError): unknown {
  return {
    type: 'error',
    error: {
      type: messagesErrorType(error.code),
      message: error.message,
      code: error.code,
      param: error.param,
    },
  };
}

@Catch()
export class MessagesErrorFilter extends HttpErrorFilter {
  protected override envelope(error: DomainError): unknown {
    return messagesErrorEnvelope(error);
  }
}
