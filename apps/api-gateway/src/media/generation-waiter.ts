import { Inject, Injectable } from '@nestjs/common';
import {
  FINAL_GENERATION_STATUSES,
  MAX_AWAIT_MS,
  MediaContracts,
  type MediaGeneration,
  type Principal,
} from '@gw/contracts';
import { RpcClient, UnansweredCallError } from '@gw/platform';
import type { Response } from 'express';
import { API_GATEWAY_ENV, type ApiGatewayEnv } from '../api-gateway.env';

/** How much longer than the wait it asked for an await call may take to be answered (the bus, a busy service). */
export const AWAIT_ANSWER_MARGIN_MS = 10_000;

export function isFinal(generation: MediaGeneration): boolean {
  return (FINAL_GENERATION_STATUSES as readonly string[]).includes(generation.status);
}

/** Resolves when the client goes away before its answer was written. */
function clientLeaving(response: Response): { left: () => boolean; leaving: Promise<void> } {
  let left = response.destroyed && !response.writableEnded;
  const leaving = new Promise<void>((resolve) => {
    if (left) resolve();
    response.once('close', () => {
      if (response.writableEnded) return;
      left = true;
      resolve();
    });
  });
  return { left: () => left, leaving };
}

/**
 * The synchronous wait of the media, image and speech routes: `await-generation` again and again,
 * each call bounded by MAX_AWAIT_MS, until the generation is final or SYNC_WAIT_MS has passed, so
 * that no NATS request is held open for minutes. The generation's job does not depend on the wait:
 * a client that leaves stops it, and a media service that stops answering ends it with the record
 * as last seen, whose id the client can poll, rather than a 503 that invites a second, paid, attempt.
 */
@Injectable()
export class GenerationWaiter {
  private readonly syncWaitMs: number;

  constructor(
    private readonly rpc: RpcClient,
    @Inject(API_GATEWAY_ENV) env: Pick<ApiGatewayEnv, 'SYNC_WAIT_MS'>,
  ) {
    this.syncWaitMs = env.SYNC_WAIT_MS;
  }

  async untilFinal(
    principal: Principal,
    generation: MediaGeneration,
    response: Response,
  ): Promise<MediaGeneration> {
    const deadline = Date.now() + this.syncWaitMs;
    const client = clientLeaving(response);
    let current = generation;
    while (!isFinal(current) && !client.left()) {
      const waitMs = Math.min(MAX_AWAIT_MS, deadline - Date.now());
      if (waitMs <= 0) break;
      const answer = this.rpc.request(
        MediaContracts.awaitGeneration,
        { principal, id: current.id, waitMs },
        { timeoutMs: waitMs + AWAIT_ANSWER_MARGIN_MS },
      );
      // Once the client has left, the call's late failure is nobody's business.
      answer.catch(() => undefined);
      try {
        const next = await Promise.race([answer, client.leaving.then(() => null)]);
        if (next === null) break;
        current = next;
      } catch (err) {
        if (err instanceof UnansweredCallError) break;
        throw err;
      }
    }
    return current;
  }
}
