import { Logger } from '@nestjs/common';
import { InferenceContracts } from '@gw/contracts';
import { type RpcClient } from '@gw/platform';
import type { Response } from 'express';
import { randomUUID } from 'node:crypto';

const logger = new Logger('FormatCancellation');

/** A completion may take minutes; the NATS call must outlast the service's own upstream timeout. */
export const FORMAT_RPC_TIMEOUT_MS = 600_000;

export function newGenerationId(): string {
  return `gen-${randomUUID()}`;
}

/**
 * Over NATS an abandoned reply does not reach the service, so every inference replica is told;
 * the one running the generation aborts its upstream call and bills what was produced.
 */
export function cancelGeneration(rpc: RpcClient, generationId: string): void {
  rpc.broadcast(InferenceContracts.cancelGeneration, { generationId }).catch((err: unknown) => {
    logger.warn(`Cancellation of ${generationId} was not broadcast: ${(err as Error).message}`);
  });
}

/** For a plain (not streamed) call: a client that leaves before the answer cancels the generation. */
export function cancelWhenAbandoned(response: Response, cancel: () => void): void {
  response.on('close', () => {
    if (!response.writableEnded) cancel();
  });
}
