import type { Response } from 'express';
import { noteAnswerCost } from '../http/answer-cost';

/** Writes a route's JSON answer, unless its client has already gone (the work it asked for goes on). */
export function answerJson(response: Response, body: unknown): void {
  if (response.writableEnded || response.destroyed) return;
  noteAnswerCost(response, body);
  response.status(200).json(body);
}
