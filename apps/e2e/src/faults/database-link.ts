import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { query } from './audit';

/**
 * A TCP relay in front of the machine's PostgreSQL (as in the gateway's outage.int-spec), through
 * which the stack's services reach their database, so that the suite can restart "PostgreSQL" for
 * them without touching the server other people use: `restart` does to the services what a fast
 * shutdown and a start do (their sessions ended with FATAL 57P01, then connections refused, then
 * accepted again on the same address).
 */
export class DatabaseLink {
  private readonly sockets = new Set<Socket>();
  private server: Server;
  private port = 0;

  private constructor(private readonly target: URL) {
    this.server = this.relay();
  }

  /** Opens a relay to `databaseUrl` and resolves with it and the URL that reaches the database through it. */
  static async open(databaseUrl: string): Promise<{ link: DatabaseLink; url: string }> {
    const link = new DatabaseLink(new URL(databaseUrl));
    await link.listen();
    const relayed = new URL(databaseUrl);
    relayed.host = `127.0.0.1:${link.port}`;
    return { link, url: relayed.toString() };
  }

  /**
   * PostgreSQL restarted under the services: no new connection from now, every session of the
   * database terminated by the server (each client reads 57P01 admin_shutdown, as at a fast
   * shutdown), anything left cut; down for `downMs`, then listening again on the same port.
   */
  async restart(downMs: number): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    const admin = new URL(this.target);
    const name = decodeURIComponent(admin.pathname.slice(1));
    admin.pathname = '/postgres';
    await query(
      admin.toString(),
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1`,
      [name],
    );
    for (const socket of this.sockets) socket.destroy();
    await closed;
    await new Promise((resolve) => setTimeout(resolve, downMs));
    this.server = this.relay();
    await this.listen();
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private relay(): Server {
    return createServer((client) => {
      const upstream = createConnection(Number(this.target.port || 5432), this.target.hostname);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => socket.destroy());
      }
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
      client.pipe(upstream).pipe(client);
    });
  }

  private listen(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.port, '127.0.0.1', () => {
        this.server.off('error', reject);
        this.port = (this.server.address() as { port: number }).port;
        resolve();
      });
    });
  }
}
