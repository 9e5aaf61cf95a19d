import { connect } from '@nats-io/transport-node';
import { Client } from 'pg';
import { StartupError } from '../env/load-env';

const CHECK_TIMEOUT_MS = 5_000;

/**
 * Connects once to the service's PostgreSQL before Nest starts, so an unreachable or misnamed
 * database is one line naming the address tried, within seconds, instead of TypeORM's retries.
 */
export async function checkPostgres(url: string): Promise<void> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: CHECK_TIMEOUT_MS });
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (err) {
    throw new StartupError(
      `Cannot reach PostgreSQL at ${postgresAddress(url)} (DATABASE_URL): ${reason(err)}; start it or set DATABASE_URL`,
    );
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The same for NATS: one connection attempt, no reconnects. */
export async function checkNats(servers: string): Promise<void> {
  try {
    const connection = await connect({ servers, timeout: CHECK_TIMEOUT_MS, reconnect: false });
    await connection.close();
  } catch (err) {
    throw new StartupError(
      `Cannot reach NATS at ${servers} (NATS_URL): ${reason(err)}; start nats-server -js or set NATS_URL`,
    );
  }
}

/** host:port/database of a connection URL, without the credentials. */
function postgresAddress(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || 5432}${parsed.pathname}`;
  } catch {
    return 'an unparsable URL';
  }
}

function reason(err: unknown): string {
  const error = err as (Error & { code?: string; errors?: Error[] }) | undefined;
  // A refused connection to a host with several addresses arrives as an AggregateError without a message.
  const message = error?.message || error?.errors?.[0]?.message || error?.code;
  return message || 'unknown error';
}
