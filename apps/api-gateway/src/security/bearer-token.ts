import { DomainError } from '@gw/contracts';

/** Extracts the token of `Authorization: Bearer <token>`, or throws `unauthorized`. */
export function bearerToken(header: string | string[] | undefined): string {
  const value = Array.isArray(header) ? header[0] : header;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(value ?? '');
  if (!match)
    throw new DomainError('unauthorized', 'Missing bearer token: send "Authorization: Bearer <API key>"');
  return match[1];
}
