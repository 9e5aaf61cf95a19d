/**
 * The host to print in URLs for a server bound to `host`: a wildcard address is no destination, so
 * it becomes `localhost`, which reaches it from the same machine (or through a published port); an
 * IPv6 literal is bracketed, as URLs require.
 */
export function publicHost(host: string): string {
  if (host === '0.0.0.0' || host === '::') return 'localhost';
  return host.includes(':') ? `[${host}]` : host;
}
