import { Empty, type NatsConnection } from '@nats-io/transport-node';
import { type BlobStore } from '../blobs/blob-store';
import { ClaimCheckServerNats } from './claim-check-server-nats';
import { livenessSubject } from './responder-watch';

type NatsServerOptions = ConstructorParameters<typeof ClaimCheckServerNats>[0];

/**
 * The services' NATS server, which also answers the liveness probes of its callers (ResponderWatch):
 * beside each request subject it serves, it subscribes to that subject's liveness subject, in the
 * same queue group, and answers at once. The subscriptions live and die with the process's
 * connection, so NATS answers "no responders" for them as soon as the last replica is gone.
 */
export class LivenessServerNats extends ClaimCheckServerNats {
  constructor(
    private readonly serverOptions: NatsServerOptions,
    blobs: BlobStore | null,
    drainTimeoutMs?: number,
  ) {
    super(serverOptions, blobs, drainTimeoutMs);
  }

  override bindEvents(client: NatsConnection): void {
    super.bindEvents(client);
    for (const [subject, handler] of this.getHandlers()) {
      if (handler.isEventHandler) continue;
      client.subscribe(livenessSubject(subject), {
        queue: this.serverOptions.queue,
        callback: (err, message) => {
          if (!err) message.respond(Empty);
        },
      });
    }
  }
}
