import type { Request, Response } from 'express';

/** Adapters must prove they authenticate: either wire's key header counts, its value does not. */
export function hasCredentials(request: Request): boolean {
  const authorization = request.headers.authorization;
  const apiKey = request.headers['x-api-key'];
  return (
    (typeof authorization === 'string' && authorization.trim().length > 0) ||
    (typeof apiKey === 'string' && apiKey.length > 0)
  );
}

/** Cuts the connection once what was written so far has left, as a provider crashing mid-answer would. */
export function cut(res: Response): void {
  const socket = res.socket;
  if (!socket) return;
  socket.write('', () => socket.destroy());
}
