import type { BlobStore } from '../blobs/blob-store';
import type { InProcessBus } from './in-process-bus';

/** How an app talks to the others: real NATS (distributed mode) or the in-process bus (embedded mode). */
export type TransportOptions =
  | {
      kind: 'nats';
      servers: string;
      rpcTimeoutMs: number;
      /**
       * Where request payloads above NATS's `max_payload` are staged (claim checks), sent by this
       * app's RpcClient and redeemed by its service; without one such a request is a 413.
       */
      blobs?: BlobStore;
    }
  | { kind: 'in-process'; bus: InProcessBus; rpcTimeoutMs: number };

export const TRANSPORT_OPTIONS = Symbol('TRANSPORT_OPTIONS');
export const RPC_CLIENT_PROXY = Symbol('RPC_CLIENT_PROXY');
