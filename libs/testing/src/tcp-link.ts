import { freePort } from './free-port';
import { createConnection, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP relay in front of a real server (PostgreSQL, NATS, S3), so a test can take the server away
 * from an app, as an outage or a network partition does, and give it back on the same address.
 */
export class TcpLink {
  private readonly sockets = new Set<Socket>();
  private server: Server | null = null;
  private port = 0;

  private constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  /** A link to `host:port`, open, and the address apps should use instead. */
  static async open(host: string, port: number): Promise<TcpLink> {
    const link = new TcpLink(host, port);
    // Not a port from the kernel's ephemeral range, which a client of the suite could take meanwhile.
    link.port = await freePort();
    await link.restore();
    return link;
  }

  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  /** `url` with its host and port replaced by the link's. */
  relay(url: string): string {
    const relayed = new URL(url);
    relayed.host = this.address;
    return relayed.toString().replace(/\/$/, '');
  }

  /** Every connection dropped and no new one accepted. */
  async cut(): Promise<void> {
    const refused = this.refuse();
    for (const socket of this.sockets) socket.destroy();
    await refused;
  }

  /** No new connection accepted; those open go on until their ends close them (or `cut`). */
  refuse(): Promise<void> {
    const server = this.server;
    this.server = null;
    return new Promise((resolve) => (server ? server.close(() => resolve()) : resolve()));
  }

  /** Accepts connections again, on the same port. */
  async restore(): Promise<void> {
    const server = createServer((client) => {
      const upstream = createConnection(this.targetPort, this.targetHost);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => socket.destroy());
      }
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.server = server;
  }
}
