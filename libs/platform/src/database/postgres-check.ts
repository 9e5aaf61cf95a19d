import { type INestApplicationContext } from '@nestjs/common';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { type DependencyCheck } from '../bootstrap/readiness';
import { CHECK_TIMEOUT_MS, startupFailureReason } from '../bootstrap/dependency-check';
import { StartupError } from '../env/load-env';

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
      `Cannot reach PostgreSQL at ${postgresAddress(url)} (DATABASE_URL): ${startupFailureReason(err)}; start it or set DATABASE_URL`,
    );
  } finally {
    await client.end().catch(() => undefined);
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

/** The service's database answers a query through its own pool. */
export function postgresCheck(dataSource: DataSource): DependencyCheck {
  return { name: 'postgres', check: () => dataSource.query('SELECT 1') };
}

/** A started service's database check, through the service's own pool. */
export function servicePostgresCheck(service: INestApplicationContext): DependencyCheck {
  return postgresCheck(service.get(DataSource, { strict: false }));
}
