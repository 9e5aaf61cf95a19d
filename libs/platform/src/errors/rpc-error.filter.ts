import { ArgumentsHost, Catch, Logger, RpcExceptionFilter } from '@nestjs/common';
import { DomainError, isRpcErrorPayload, RpcErrorPayload } from '@gw/contracts';
import { Observable, throwError } from 'rxjs';
import { describeErrorForLog } from '../logging/log-text';
import { isDependencyOutage } from './dependency-outage';

/**
 * Service side of the error contract: whatever a handler throws leaves the service as an
 * RpcErrorPayload. A lost or refused database connection is `service_unavailable` (the client may
 * retry). Anything else that is not a DomainError is a defect: it is logged with its stack here
 * and crosses the wire as a bare `internal_error` (never with internals in the message).
 */
@Catch()
export class RpcErrorFilter implements RpcExceptionFilter<unknown> {
  private readonly logger = new Logger('RpcErrorFilter');

  catch(exception: unknown, _host: ArgumentsHost): Observable<RpcErrorPayload> {
    return throwError(() => toRpcErrorPayload(exception, this.logger));
  }
}

export function toRpcErrorPayload(exception: unknown, logger: Logger): RpcErrorPayload {
  if (exception instanceof DomainError) return exception.toPayload();
  if (isRpcErrorPayload(exception)) return exception;
  logger.error(describeErrorForLog(exception));
  if (isDependencyOutage(exception)) {
    return new DomainError(
      'service_unavailable',
      'The service is temporarily unavailable; retry later',
    ).toPayload();
  }
  return new DomainError('internal_error', 'Internal error').toPayload();
}
