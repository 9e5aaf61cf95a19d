import { type ClientProxy } from '@nestjs/microservices';
import { type NatsConnection } from '@nats-io/transport-node';
import {
  blobStoreCheck,
  natsCheck,
  Readiness,
  type DependencyCheck,
  type TransportOptions,
} from '@gw/platform';
import { type BlobStore } from '@gw/platform/blobs';

/**
 * What the gateway cannot serve without: NATS, which carries every call to the services, and the
 * blob store its uploads, downloads and claim checks go through. It holds no database. On the
 * in-process bus of the embedded mode there is no NATS to lose, but the services it hosts share
 * one PostgreSQL: the embedded mode passes that check as `hostChecks` (the one readiness of the
 * whole process).
 */
export function gatewayReadiness(
  transport: TransportOptions,
  proxy: ClientProxy,
  blobs: BlobStore,
  hostChecks: readonly DependencyCheck[] = [],
): Readiness {
  const checks: DependencyCheck[] = [
    // The client connects on its first call; a probe may come first.
    ...(transport.kind === 'nats' ? [natsCheck(() => proxy.connect() as Promise<NatsConnection>)] : []),
    blobStoreCheck(blobs),
    ...hostChecks,
  ];
  const readiness = new Readiness();
  // The gateway takes requests only once it has started, so it serves from the start.
  readiness.serve(checks);
  return readiness;
}
