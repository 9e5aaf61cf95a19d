import { connect } from '@nats-io/transport-node';
import { StartupError } from '../env/load-env';
import { redactSecrets } from '../observability/redaction';
import { type NatsAuth } from '../transport/transport-options';

export const CHECK_TIMEOUT_MS = 5_000;

/** Connects once to NATS before Nest starts (no reconnects), so an unreachable one is one line naming its address. */
export async function checkNats(servers: string, auth: NatsAuth = {}): Promise<void> {
  try {
    const connection = await connect({ servers, ...auth, timeout: CHECK_TIMEOUT_MS, reconnect: false });
    await connection.close();
  } catch (err) {
    throw new StartupError(
      `Cannot reach NATS at ${redactSecrets(servers)} (NATS_URL): ${startupFailureReason(err)}; start nats-server -js or set NATS_URL`,
    );
  }
}

export function startupFailureReason(err: unknown): string {
  const error = err as (Error & { code?: string; errors?: Error[] }) | undefined;
  // A refused connection to a host with several addresses arrives as an AggregateError without a message.
  const message = error?.message || error?.errors?.[0]?.message || error?.code;
  return message || 'unknown error';
}
