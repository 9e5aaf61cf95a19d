/**
 * Failures that say a dependency (PostgreSQL, the network to it) is down rather than that the code
 * is wrong: socket errors, the SQLSTATE classes of a lost or refused connection, and the words the
 * pg driver uses when a pooled connection dies or never comes.
 */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);
/** admin_shutdown, crash_shutdown, cannot_connect_now, too_many_connections, database_dropped. */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300', '57P04']);
const DRIVER_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error',
  'Connection is not established',
];

export function isDependencyOutage(error: unknown, depth = 0): boolean {
  if (typeof error !== 'object' || error === null || depth > 3) return false;
  const { code, message, driverError, errors, cause } = error as Record<string, unknown>;
  if (typeof code === 'string') {
    // SQLSTATE class 08: connection exception.
    if (NETWORK_CODES.has(code) || UNAVAILABLE_SQLSTATES.has(code) || /^08[0-9A-Z]{3}$/.test(code))
      return true;
  }
  if (typeof message === 'string' && DRIVER_MESSAGES.some((words) => message.startsWith(words))) return true;
  const nested = [driverError, cause, ...(Array.isArray(errors) ? (errors as unknown[]) : [])];
  return nested.some((inner) => isDependencyOutage(inner, depth + 1));
}
