import type { ConnectionOptions } from '@nats-io/transport-node';
import type { BlobStore } from '../blobs/blob-store';
import type { NatsClientEnv } from '../env/base-env';
import type { InProcessBus } from './in-process-bus';

/** How an app talks to the others: real NATS (distributed mode) or the in-process bus (embedded mode). */
export type TransportOptions =
  | {
      kind: 'nats';
      servers: string;
      rpcTimeoutMs: number;
      /** Credentials and TLS for every connection the app opens to NATS; none on an open bus. */
      auth?: NatsAuth;
      /**
       * Where request payloads above NATS's `max_payload` are staged (claim checks), sent by this
       * app's RpcClient and redeemed by its service; without one such a request is a 413.
       */
      blobs?: BlobStore;
      /** How long a closing app waits for the requests its handlers are serving before it cuts them. */
      drainTimeoutMs?: number;
    }
  | { kind: 'in-process'; bus: InProcessBus; rpcTimeoutMs: number };

export const TRANSPORT_OPTIONS = Symbol('TRANSPORT_OPTIONS');
export const RPC_CLIENT_PROXY = Symbol('RPC_CLIENT_PROXY');

/** How a process proves itself to NATS: a user and password, and TLS options when configured. */
export type NatsAuth = Pick<ConnectionOptions, 'user' | 'pass' | 'tls'>;

/** The NATS credentials and TLS options an app's environment gives. */
export function natsAuth(env: NatsClientEnv): NatsAuth {
  return {
    ...(env.NATS_USER ? { user: env.NATS_USER, pass: env.NATS_PASSWORD } : {}),
    ...(env.NATS_TLS_CA_FILE ? { tls: { caFile: env.NATS_TLS_CA_FILE } } : {}),
  };
}
