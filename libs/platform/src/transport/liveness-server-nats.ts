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

  /**
   * Listening means NATS has the subscriptions: a flush waits for the server to take them, so a
   * request sent by another connection right after the start finds a responder instead of "no
   * responders" (a replica started under load answered its first caller 503).
   */
  override start(callback: (err?: unknown, ...optionalParams: unknown[]) => void): void {
    super.start((err?: unknown) => {
      if (err) return callback(err);
      this.unwrap<NatsConnection>()
        .flush()
        .then(() => callback(), callback);
    });
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
