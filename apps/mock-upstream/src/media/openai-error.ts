import type { Response } from 'express';

/** OpenAI's error body. */
export function sendOpenAiError(
  res: Response,
  status: number,
  message: string,
  type = 'invalid_request_error',
  param: string | null = null,
): void {
  res.status(status).json({ error: { message, type, code: null, param } });
}
