import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import { DomainError, ERROR_CODE_TABLE, ErrorCode, ErrorEnvelope, isRpcErrorPayload } from '@gw/contracts';
import type { Response } from 'express';
import { describeErrorForLog } from '../logging/log-text';

/** HTTP statuses raised by Nest or Express themselves, mapped onto our codes. */
const HTTP_STATUS_CODES: Record<number, ErrorCode> = {
  400: 'invalid_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'invalid_request',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limited',
};

/** When a refused client may try again: a rate limit's window, or a dependency's usual recovery. */
const RETRY_AFTER_SECONDS: Record<number, number> = { 429: 60, 503: 5 };

/**
 * Gateway side of the error contract: every failure becomes the envelope of DESIGN.md §5.1, with
 * the status from the one table in @gw/contracts. Unknown failures are logged and answered 500
 * without internals.
 */
@Catch()
export class HttpErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('HttpErrorFilter');

  catch(exception: unknown, host: ArgumentsHost): void {
    const response = host.switchToHttp().getResponse<Response>();
    const error = toDomainErrorForHttp(exception, this.logger);
    if (response.headersSent) {
      response.end();
      return;
    }
    const retryAfter = error.retryAfterSeconds ?? RETRY_AFTER_SECONDS[error.status];
    if (retryAfter !== undefined && !response.getHeader('Retry-After'))
      response.setHeader('Retry-After', String(retryAfter));
    response.status(error.status).json(this.envelope(error));
  }

  /** The body an error is answered with; an API with an error shape of its own overrides it. */
  protected envelope(error: DomainError): unknown {
    return errorEnvelope(error);
  }
}

export function errorEnvelope(error: DomainError): ErrorEnvelope {
  return {
    error: {
      message: error.message,
      type: ERROR_CODE_TABLE[error.code].type,
      code: error.code,
      param: error.param,
    },
  };
}

export function toDomainErrorForHttp(exception: unknown, logger: Logger): DomainError {
  if (exception instanceof DomainError) return exception;
  if (isRpcErrorPayload(exception)) return DomainError.fromPayload(exception);
  if (exception instanceof HttpException) {
    const parserError = bodyParserError(exception.cause);
    if (parserError) return parserError;
    const status = exception.getStatus();
    const code = HTTP_STATUS_CODES[status];
    if (code) return new DomainError(code, httpExceptionMessage(exception));
  }
  logger.error(describeErrorForLog(exception));
  return new DomainError('internal_error', 'Internal error');
}

/** Nest hands body-parser's errors on as HttpExceptions caused by them; two get plainer words than the parser's. */
function bodyParserError(cause: unknown): DomainError | null {
  const type = (cause as { type?: unknown } | undefined)?.type;
  if (type === 'entity.parse.failed')
    return new DomainError('invalid_request', 'The request body is not valid JSON');
  if (type === 'entity.too.large')
    return new DomainError('payload_too_large', 'The request body is too large');
  return null;
}

function httpExceptionMessage(exception: HttpException): string {
  const body = exception.getResponse();
  if (typeof body === 'string') return body;
  const message = (body as { message?: unknown }).message;
  if (Array.isArray(message)) return message.join('; ');
  return typeof message === 'string' ? message : exception.message;
}
