import type { Response } from 'express';

/** What the answer written on a response cost, until its request's access-log line is written. */
const answerCosts = new WeakMap<Response, number>();

type Loose = Record<string, unknown> | null | undefined;

/**
 * Remembers the cost in roubles of an answer the gateway is writing on `response`, read where its
 * type puts it: `usage.cost_rub` of a chat, embeddings, Responses, Messages or media answer and of a
 * streamed chunk or Messages `message_delta`, `result.usage` of a JSON transcription,
 * `response.usage` of a Responses event, `data` of a named event. A stream's last event with a cost
 * wins; an answer without one (a pending job, a rendered text) leaves nothing.
 */
export function noteAnswerCost(response: Response, answer: unknown): void {
  const cost = costOf(answer);
  if (cost !== null) answerCosts.set(response, cost);
}

/** The recorded cost of the response's answer, forgotten once read; null when none was recorded. */
export function takeAnswerCost(response: Response): number | null {
  const cost = answerCosts.get(response);
  answerCosts.delete(response);
  return cost ?? null;
}

/** Where each answer type carries its usage, outermost first. */
const USAGE_PATHS: readonly (readonly string[])[] = [
  ['usage'],
  ['result', 'usage'],
  ['response', 'usage'],
  ['data', 'usage'],
  ['data', 'response', 'usage'],
];

function costOf(answer: unknown): number | null {
  for (const path of USAGE_PATHS) {
    let value = answer;
    for (const key of path)
      value = typeof value === 'object' && value !== null ? (value as Loose)?.[key] : undefined;
    const cost = typeof value === 'object' && value !== null ? (value as Loose)?.['cost_rub'] : undefined;
    if (typeof cost === 'number') return cost;
  }
  return null;
}
