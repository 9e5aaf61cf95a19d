import { TcpLink } from '@gw/testing';
import { query } from './audit';

/**
 * A TCP relay in front of the machine's PostgreSQL (as in the gateway's outage.int-spec), through
 * which the stack's services reach their database, so that the suite can restart "PostgreSQL" for
 * them without touching the server other people use: `restart` does to the services what a fast
 * shutdown and a start do (their sessions ended with FATAL 57P01, then connections refused, then
 * accepted again on the same address).
 */
export class DatabaseLink {
  private constructor(
    private readonly target: URL,
    private readonly link: TcpLink,
  ) {}

  /** Opens a relay to `databaseUrl` and resolves with it and the URL that reaches the database through it. */
  static async open(databaseUrl: string): Promise<{ link: DatabaseLink; url: string }> {
    const target = new URL(databaseUrl);
    const link = await TcpLink.open(target.hostname, Number(target.port || 5432));
    return { link: new DatabaseLink(target, link), url: link.relay(databaseUrl) };
  }

  /**
   * PostgreSQL restarted under the services: no new connection from now, every session of the
   * database terminated by the server (each client reads 57P01 admin_shutdown, as at a fast
   * shutdown), anything left cut; down for `downMs`, then listening again on the same port.
   */
  async restart(downMs: number): Promise<void> {
    const refused = this.link.refuse();
    const admin = new URL(this.target);
    const name = decodeURIComponent(admin.pathname.slice(1));
    admin.pathname = '/postgres';
    await query(
      admin.toString(),
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1`,
      [name],
    );
    await this.link.cut();
    await refused;
    await new Promise((resolve) => setTimeout(resolve, downMs));
    await this.link.restore();
  }

  close(): Promise<void> {
    return this.link.cut();
  }
}
