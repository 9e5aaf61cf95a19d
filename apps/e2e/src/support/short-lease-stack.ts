import { Client } from 'pg';
import { DistributedStack } from './distributed-stack';

export interface ShortLeaseStack {
  stack: DistributedStack;
  adminToken: string;
  /** The holds billing still keeps, read straight from its table. */
  held: () => Promise<{ count: number; amount: string }>;
  /** Billing's own record of one generation, for what history does not show (the error code). */
  query: <Row extends object>(sql: string, params: unknown[]) => Promise<Row[]>;
}

/**
 * A distributed stack for fault specs, started and stopped around the calling `describe`: holds
 * live on a 3 s lease that inference renews every second, so a dead renewer shows within seconds.
 */
export function useShortLeaseStack(name: string): ShortLeaseStack {
  const adminToken = `e2e-admin-token-${name}`;
  const stack = new DistributedStack({
    database: `e2e_${name.replace(/-/g, '_')}`,
    adminToken,
    jwtSecret: `e2e-jwt-secret-${name}`,
    env: {
      billing: { RESERVATION_LEASE_MS: '3000' },
      inference: { RESERVATION_RENEW_INTERVAL_MS: '1000' },
    },
  });
  let db: Client;

  beforeAll(async () => {
    await stack.start();
    db = new Client({ connectionString: stack.databaseUrl });
    await db.connect();
  }, 120_000);

  afterAll(async () => {
    await db?.end();
    await stack.stop();
  }, 30_000);

  return {
    stack,
    adminToken,
    held: async () => {
      const { rows } = await db.query<{ count: number; amount: string }>(
        `SELECT COUNT(*)::int AS "count", COALESCE(SUM("amount"), 0)::text AS "amount"
           FROM "billing"."reservations" WHERE "status" = 'held'`,
      );
      return rows[0];
    },
    query: async <Row extends object>(sql: string, params: unknown[]) =>
      (await db.query<Row>(sql, params)).rows,
  };
}
