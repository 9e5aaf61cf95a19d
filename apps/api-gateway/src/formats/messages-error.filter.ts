import { Catch } from '@nestjs/common';
import { type DomainError, messagesErrorType } from '@gw/contracts';
import { HttpErrorFilter } from '@gw/platform';

/**
 * `/v1/messages` answers errors in Anthropic's shape, a superset of the gateway's envelope
 * (DESIGN.md §5.1): `{type: 'error', error: {type, message, code, param}}` with Anthropic's error
 * type, which the Anthropic SDK reads into its own error classes.
 */
@Catch()
export class MessagesErrorFilter extends HttpErrorFilter {
  protected override envelope(error: DomainError): unknown {
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
}
