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

/** The longest a stalled answer holds its connection before the mock gives up on it itself. */
const MAX_STALL_MS = 600_000;

/**
 * Sends nothing more and keeps the connection open until the caller closes it, as a provider (or a
 * proxy before it) that hangs mid-answer does; resolves once the connection is gone.
 */
export function stall(res: Response): Promise<void> {
  if (!res.headersSent) res.flushHeaders();
  return new Promise((resolve) => {
    const timer = setTimeout(() => res.socket?.destroy(), MAX_STALL_MS);
    res.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}
