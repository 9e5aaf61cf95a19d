import type { NestExpressApplication } from '@nestjs/platform-express';

/**
 * `req.ip` is the client address that every per-address limit counts. Express takes it from
 * X-Forwarded-For only through hops listed here (addresses, CIDR ranges or Express's names such as
 * `loopback`); with none listed the header is ignored and the peer address counts, so a client
 * cannot pick its own address by sending the header.
 */
export function configureTrustedProxies(app: NestExpressApplication, trustedProxies: string): void {
  const proxies = trustedProxies
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0);
  app.set('trust proxy', proxies.length > 0 ? proxies : false);
}
