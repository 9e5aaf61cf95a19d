import type { Request, Response } from 'express';

/**
 * Adapters must prove they authenticate: either wire's key header counts, whatever its value, but
 * a key that begins with `revoked`, which is refused as a provider refuses a key it revoked.
 */
export function hasCredentials(request: Request): boolean {
  const { authorization, 'x-api-key': apiKey } = request.headers;
  const key =
    (typeof apiKey === 'string' && apiKey) || (typeof authorization === 'string' ? authorization.trim() : '');
  return key !== '' && !/^(Bearer\s+)?revoked/i.test(key);
}

/** Cuts the connection once what was written so far has left, as a provider crashing mid-answer would. */
export function cut(res: Response): void {
  const socket = res.socket;
  if (!socket) return;
  socket.write('', () => socket.destroy());
}
