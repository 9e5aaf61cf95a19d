import { ArgumentsHost, Catch, ExceptionFilter, Logger } from '@nestjs/common';
import { HttpErrorFilter, toDomainErrorForHttp } from '@gw/platform';
import type { Request, Response } from 'express';
import { setBrowserPageHeaders } from './browser-headers';
import { errorPage } from './oauth-pages';

/** A browser asks for text/html by name; API clients (fetch, curl, SDKs) send `*\/*` or JSON. */
export function prefersHtml(request: Request): boolean {
  return /\btext\/html\b/i.test(request.headers.accept ?? '');
}

/**
 * Errors of the browser routes: a page with the same message for a browser, the JSON envelope for
 * everything else (the interface's error tables are checked by API clients).
 */
@Catch()
export class BrowserErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger(BrowserErrorFilter.name);
  private readonly json = new HttpErrorFilter();

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<Request>();
    const response = http.getResponse<Response>();
    if (!prefersHtml(request)) return this.json.catch(exception, host);
    const error = toDomainErrorForHttp(exception, this.logger);
    if (response.headersSent) {
      response.end();
      return;
    }
    setBrowserPageHeaders(response);
    response.status(error.status).type('html').send(errorPage(error.status, error.message));
  }
}
