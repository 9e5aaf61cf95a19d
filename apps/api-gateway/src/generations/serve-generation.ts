import type { Principal, RpcContract, StreamContract } from '@gw/contracts';
import { type RpcClient, UnansweredCallError } from '@gw/platform';
import type { Response } from 'express';
import { noteAnswerCost } from '../http/answer-cost';
import { cancelGeneration, cancelWhenAbandoned, newGenerationId } from './generation-cancellation';
import type { EventFraming } from './server-sent-events';
import { relayServerSentEvents } from './server-sent-events';
import type { UndeliveredGenerations } from './undelivered-generations';

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

/** What the gateway calls a generation with, and whom it tells when it could not deliver one. */
export interface GenerationCalls {
  rpc: RpcClient;
  undelivered: UndeliveredGenerations;
}

const FROM_VALIDATED_BODY: GenerationMessageOrigin = { fromValidatedBody: true };

/** Every generation message names its caller and carries the id the gateway chose for it. */
interface GenerationMessage {
  principal: Principal;
  generationId?: string;
}

/**
 * What to do when a generation's call fails: a call the service or the bus left unanswered is
 * cancelled and reported undelivered, so that the client, who got a 503 instead of the answer, is
 * not charged. A client that left first cancelled the generation itself and pays for what was produced.
 */
function onceUnanswered(calls: GenerationCalls, response: Response, payload: GenerationMessage) {
  let clientLeft = false;
  response.on('close', () => (clientLeft ||= !response.writableEnded));
  return (err: unknown): void => {
    const generationId = payload.generationId;
    if (!(err instanceof UnansweredCallError) || clientLeft || generationId === undefined) return;
    cancelGeneration(calls.rpc, generationId);
    calls.undelivered.report({
      generationId,
      organizationId: payload.principal.organizationId,
      reason: err.message,
    });
  };
}

/**
 * How the gateway built a generation's message: `fromValidatedBody` when it is the principal, ids
 * and a body its DTO validated at the edge, which the service then takes without validating again
 * in the same process (decision 191).
 */
export interface GenerationMessageOrigin {
  fromValidatedBody: boolean;
}

/**
 * One plain generation call (chat, embeddings, transcriptions), bounded by the whole-call timeout
 * and by the idle timeout on its heartbeats; an unanswered call is reported undelivered.
 */
export async function requestGeneration<Message extends GenerationMessage, Answer>(
  calls: GenerationCalls,
  response: Response,
  contract: RpcContract<Message, Answer>,
  payload: Message,
  origin: GenerationMessageOrigin,
): Promise<Answer> {
  const unanswered = onceUnanswered(calls, response, payload);
  try {
    const answer = await calls.rpc.request(contract, payload, {
      timeoutMs: GENERATION_RPC_TIMEOUT_MS,
      idleTimeoutMs: GENERATION_IDLE_TIMEOUT_MS,
      builtByCaller: origin.fromValidatedBody,
    });
    noteAnswerCost(response, answer);
    return answer;
  } catch (err) {
    unanswered(err);
    throw err;
  }
}

/**
 * Runs a generation for an HTTP client: streamed as Server-Sent Events, or answered as JSON once
 * it is done. Either way a client that leaves before the end cancels it, and a call left
 * unanswered is reported undelivered. Its message is the principal, ids and the body its route's
 * DTO validated.
 */
export async function serveGeneration<Message extends GenerationMessage, Answer, Event>(
  calls: GenerationCalls,
  response: Response,
  route: GenerationRoute<Message, Answer, Event>,
  streamed: boolean,
  message: (generationId: string) => Message,
): Promise<void> {
  const generationId = newGenerationId();
  const payload = message(generationId);
  const cancel = () => cancelGeneration(calls.rpc, generationId);
  if (streamed) {
    const events = calls.rpc.stream(route.events, payload, {
      idleTimeoutMs: GENERATION_IDLE_TIMEOUT_MS,
      builtByCaller: true,
    });
    return relayServerSentEvents(events, response, route.framing, {
      onAbandoned: cancel,
      onFailed: onceUnanswered(calls, response, payload),
    });
  }
  cancelWhenAbandoned(response, cancel);
  const answer = await requestGeneration(calls, response, route.answer, payload, FROM_VALIDATED_BODY);
  if (!response.writableEnded && !response.destroyed) response.status(200).json(answer);
}
