import { Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';

/**
 * Anthropic clients send the key as `x-api-key`; the shared guard reads `Authorization: Bearer`.
 * An explicit Authorization header wins, so the guard sees exactly one credential.
 */
@Injectable()
export class XApiKeyMiddleware implements NestMiddleware {
  use(request: Request, _response: Response, next: NextFunction): void {
    const key = request.headers['x-api-key'];
    if (request.headers.authorization === undefined && typeof key === 'string' && key.trim() !== '') {
      request.headers.authorization = `Bearer ${key.trim()}`;
    }
    next();
  }
}
