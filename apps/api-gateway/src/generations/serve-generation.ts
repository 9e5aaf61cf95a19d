import type { RpcContract, StreamContract } from '@gw/contracts';
import type { RpcClient } from '@gw/platform';
import type { Response } from 'express';
import { cancelGeneration, cancelWhenAbandoned, newGenerationId } from './generation-cancellation';
import type { EventFraming } from './server-sent-events';
import { relayServerSentEvents } from './server-sent-events';

/** A completion may take minutes; the NATS call must outlast the service's own upstream timeout. */
export const GENERATION_RPC_TIMEOUT_MS = 600_000;

/**
 * The generation handlers send a heartbeat every HEARTBEAT_INTERVAL_MS while they work: this much
 * silence (five missed beats) means inference or the bus died, and the client is told so at once.
 */
export const GENERATION_IDLE_TIMEOUT_MS = 10_000;

/** The two calls of one generation API, and how its stream is written. */
export interface GenerationRoute<Message extends object, Answer, Event> {
  answer: RpcContract<Message, Answer>;
  events: StreamContract<Message, Event>;
  framing: EventFraming<Event>;
}

/**
 * Runs a generation for an HTTP client: streamed as Server-Sent Events, or answered as JSON once
 * it is done. Either way a client that leaves before the end cancels it.
 */
export async function serveGeneration<Message extends object, Answer, Event>(
  rpc: RpcClient,
  response: Response,
  route: GenerationRoute<Message, Answer, Event>,
  streamed: boolean,
  message: (generationId: string) => Message,
): Promise<void> {
  const generationId = newGenerationId();
  const cancel = () => cancelGeneration(rpc, generationId);
  if (streamed) {
    const events = rpc.stream(route.events, message(generationId), {
      idleTimeoutMs: GENERATION_IDLE_TIMEOUT_MS,
    });
    return relayServerSentEvents(events, response, route.framing, cancel);
  }
  cancelWhenAbandoned(response, cancel);
  const answer = await rpc.request(route.answer, message(generationId), {
    timeoutMs: GENERATION_RPC_TIMEOUT_MS,
    idleTimeoutMs: GENERATION_IDLE_TIMEOUT_MS,
  });
  if (!response.writableEnded && !response.destroyed) response.status(200).json(answer);
}
