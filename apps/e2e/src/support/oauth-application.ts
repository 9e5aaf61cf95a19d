import { freePort } from '@gw/testing';
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';

export interface PkcePair {
  verifier: string;
  challenge: string;
}

/** What a client library does: 64 random unreserved characters and their S256 challenge. */
export function pkcePair(): PkcePair {
  const verifier = randomBytes(48).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/**
 * A third-party application as the browser sees it: its callback page at `callbackUrl`, on its
 * own origin (same site as the gateway, both on 127.0.0.1, so SameSite cookies do go along), and
 * a page with a forged consent form aimed at the gateway.
 */
export class OAuthApplication {
  callbackUrl!: string;
  origin!: string;
  private server?: Server;
  private forgedTarget = '';

  async start(): Promise<void> {
    const port = await freePort();
    this.origin = `http://127.0.0.1:${port}`;
    this.callbackUrl = `${this.origin}/callback`;
    this.server = createServer((request, response) => {
      const path = (request.url ?? '').split('?')[0];
      response.setHeader('Content-Type', 'text/html; charset=utf-8');
      if (path === '/forge') {
        response.end(
          `<!doctype html><form method="post" action="${this.forgedTarget}">` +
            '<input type="hidden" name="csrf" value="forged-token-forged-token-forged-token-fo">' +
            '<input type="hidden" name="decision" value="approve">' +
            '<button id="forge" type="submit">Win a prize</button></form>',
        );
        return;
      }
      response.end('<!doctype html><title>Callback</title><p>Application callback</p>');
    });
    await new Promise<void>((resolve) => this.server?.listen(port, '127.0.0.1', resolve));
  }

  /** The page at `${origin}/forge` will post a consent form with a made-up CSRF token to `target`. */
  forge(target: string): string {
    this.forgedTarget = target.replace(/&/g, '&amp;').replace(/"/g, '&quot;');
    return `${this.origin}/forge`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
