import { type NatsConnection } from '@nats-io/transport-node';
import { type BlobStore, transientBlobKey } from '../blobs/blob-store';
import { type DependencyCheck } from './readiness';

/**
 * NATS answers a ping on the app's connection. A connection that is reconnecting fails at once
 * (nats.js queues a flush until it is back), one that drains or closed fails too.
 */
export function natsCheck(connection: () => NatsConnection | Promise<NatsConnection>): DependencyCheck {
  return {
    name: 'nats',
    check: async () => {
      const nc = await connection();
      if (nc.isDraining()) throw new Error('draining');
      return nc.rtt();
    },
  };
}

/**
 * The blob store answers a read of an object that does not exist: a network, credential or bucket
 * problem rejects, while "missing" is the answer of a store that works.
 */
export function blobStoreCheck(store: BlobStore): DependencyCheck {
  return { name: 'blob-store', check: () => store.head(transientBlobKey()) };
}
