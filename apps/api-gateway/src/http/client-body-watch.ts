import type { LoggerService } from '@nestjs/common';
import { DomainError } from '@gw/contracts';
import type { Readable } from 'node:stream';

/**
 * Watches a client's body while it is written to the blob store, so that a failed write is
 * answered as the fault of whoever caused it: a body that broke is the client's (400), a whole
 * body the store failed is the store's, which the client can only retry later (503).
 */
export class ClientBodyWatch {
  private broke = false;

  /** A break of `body` also destroys `downstream`, the stream the store reads. */
  constructor(body: Readable, downstream: { destroy(err?: Error): unknown }) {
    body.once('error', (err) => {
      this.broke = true;
      downstream.destroy(err);
    });
  }

  /** The error the client is told when writing `what` failed with `err`. */
  failure(err: unknown, logger: LoggerService, what: string): DomainError {
    if (err instanceof DomainError) return err;
    if (this.broke) return new DomainError('invalid_request', 'The upload was cut off', 'file');
    logger.warn(`${what} not written: ${(err as Error).message}`);
    return new DomainError('service_unavailable', 'The file store is unavailable; retry later');
  }
}
