import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';
import { type LookupAddress, Resolver } from 'node:dns';
import { isIP } from 'node:net';

/** What the stub answers for a name: its A and AAAA records (none of a type is a NODATA answer). */
export interface DnsRecords {
  a?: string[];
  aaaa?: string[];
}

/**
 * How a name answers: the same records every time, a sequence (the nth query of each type gets the
 * nth entry, the last one repeating: `[public, loopback]` is a rebinding name), or `silent` (the
 * stub never answers, as a DNS server that hangs).
 */
export type DnsPlan = DnsRecords | DnsRecords[] | 'silent';

export interface DnsQuery {
  name: string;
  type: 'A' | 'AAAA' | number;
}

const TYPE_A = 1;
const TYPE_AAAA = 28;

/**
 * A DNS server on 127.0.0.1 (UDP) for tests: it answers A and AAAA questions for the names it was
 * given, with TTL 0, NXDOMAIN for any other name, and records every question it was asked.
 */
export class DnsStub {
  readonly queries: DnsQuery[] = [];
  private readonly plans = new Map<string, DnsPlan>();
  /** Answers given so far per name and type, for sequences. */
  private readonly asked = new Map<string, number>();
  /** The resolvers of lookup(), whose pending queries close() cancels. */
  private readonly resolvers: Resolver[] = [];

  private constructor(
    private readonly socket: Socket,
    readonly port: number,
  ) {
    socket.on('message', (message, peer) => this.answer(message, peer));
  }

  static async start(): Promise<DnsStub> {
    const socket = createSocket('udp4');
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.bind(0, '127.0.0.1', () => resolve());
    });
    return new DnsStub(socket, socket.address().port);
  }

  /** `127.0.0.1:<port>`, for `Resolver.setServers`. */
  get server(): string {
    return `127.0.0.1:${this.port}`;
  }

  set(name: string, plan: DnsPlan): this {
    const key = name.toLowerCase();
    this.plans.set(key, plan);
    for (const type of ['A', 'AAAA']) this.asked.delete(`${key} ${type}`);
    return this;
  }

  /** The questions asked about one name. */
  queriesFor(name: string): DnsQuery[] {
    return this.queries.filter((query) => query.name === name.toLowerCase());
  }

  /**
   * A lookup over this stub in the shape of `dns.lookup(hostname, {all: true, family}, callback)`:
   * A and/or AAAA by `family`, every address in the order the stub gave them (A first), ENOTFOUND
   * when neither type has one. It never consults /etc/hosts or the machine's resolver.
   */
  lookup(timeoutMs = 2_000): StubLookup {
    const resolver = new Resolver({ timeout: timeoutMs, tries: 1 });
    resolver.setServers([this.server]);
    this.resolvers.push(resolver);
    const resolve = (hostname: string, type: 4 | 6) =>
      new Promise<LookupAddress[]>((settle, reject) => {
        const done = (err: NodeJS.ErrnoException | null, addresses: string[]) => {
          if (err && (err.code === 'ENODATA' || err.code === 'ENOTFOUND')) return settle([]);
          if (err) return reject(err);
          settle(addresses.map((address) => ({ address, family: type })));
        };
        if (type === 4) resolver.resolve4(hostname, done);
        else resolver.resolve6(hostname, done);
      });
    return (hostname, options, callback) => {
      const families: Array<4 | 6> = options.family === 4 || options.family === 6 ? [options.family] : [4, 6];
      Promise.all(families.map((type) => resolve(hostname, type))).then(
        (lists) => {
          const addresses = lists.flat();
          if (addresses.length > 0) return callback(null, addresses);
          callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), []);
        },
        (err: NodeJS.ErrnoException) => callback(err, []),
      );
    };
  }

  close(): Promise<void> {
    this.resolvers.forEach((resolver) => resolver.cancel());
    return new Promise((resolve) => this.socket.close(() => resolve()));
  }

  private answer(message: Buffer, peer: RemoteInfo): void {
    const question = parseQuestion(message);
    if (!question) return;
    const name = question.name.toLowerCase();
    const type = question.type === TYPE_A ? 'A' : question.type === TYPE_AAAA ? 'AAAA' : question.type;
    this.queries.push({ name, type });
    const plan = this.plans.get(name);
    if (plan === 'silent') return;
    let records: DnsRecords | undefined;
    if (Array.isArray(plan)) {
      const key = `${name} ${String(type)}`;
      const index = this.asked.get(key) ?? 0;
      this.asked.set(key, index + 1);
      records = plan[Math.min(index, plan.length - 1)];
    } else records = plan;
    const addresses =
      records === undefined
        ? null
        : type === 'A'
          ? (records.a ?? [])
          : type === 'AAAA'
            ? (records.aaaa ?? [])
            : [];
    this.socket.send(reply(message, question.end, question.type, addresses), peer.port, peer.address);
  }
}

/** The lookup a fetcher takes in place of `dns.lookup` with `all: true`. */
export type StubLookup = (
  hostname: string,
  options: { family?: number | string },
  callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

function parseQuestion(message: Buffer): { name: string; type: number; end: number } | null {
  if (message.length < 12 || message.readUInt16BE(4) !== 1) return null;
  const labels: string[] = [];
  let offset = 12;
  while (offset < message.length) {
    const length = message[offset];
    offset += 1;
    if (length === 0) break;
    if (length > 63 || offset + length > message.length) return null;
    labels.push(message.toString('latin1', offset, offset + length));
    offset += length;
  }
  if (offset + 4 > message.length) return null;
  return { name: labels.join('.'), type: message.readUInt16BE(offset), end: offset + 4 };
}

/** The response to a one-question query: NXDOMAIN for `null`, else the addresses of its type (none: NODATA). */
function reply(query: Buffer, questionEnd: number, type: number, addresses: string[] | null): Buffer {
  const header = Buffer.alloc(12);
  query.copy(header, 0, 0, 2);
  const recursionDesired = query[2] & 0x01;
  header[2] = 0x84 | recursionDesired; // QR, AA, RD as asked
  header[3] = 0x80 | (addresses === null ? 3 : 0); // RA, RCODE
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(addresses?.length ?? 0, 6);
  const answers = (addresses ?? []).map((address) => {
    const data = type === TYPE_A ? ipv4Bytes(address) : ipv6Bytes(address);
    const record = Buffer.alloc(12);
    record.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
    record.writeUInt16BE(type, 2);
    record.writeUInt16BE(1, 4); // class IN
    record.writeUInt32BE(0, 6); // TTL 0: nothing may cache it
    record.writeUInt16BE(data.length, 10);
    return Buffer.concat([record, data]);
  });
  return Buffer.concat([header, query.subarray(12, questionEnd), ...answers]);
}

function ipv4Bytes(address: string): Buffer {
  if (isIP(address) !== 4) throw new Error(`not an IPv4 address: ${address}`);
  return Buffer.from(address.split('.').map(Number));
}

/** Sixteen bytes of an IPv6 address, including the dotted forms (`::ffff:127.0.0.1`). */
function ipv6Bytes(address: string): Buffer {
  if (isIP(address) !== 6) throw new Error(`not an IPv6 address: ${address}`);
  let text = address;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted[1].split('.').map(Number);
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, null];
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  const front = groups(head);
  const back = tail === null ? [] : groups(tail);
  const all = [...front, ...Array<string>(8 - front.length - back.length).fill('0'), ...back];
  const bytes = Buffer.alloc(16);
  all.forEach((group, i) => bytes.writeUInt16BE(parseInt(group, 16), i * 2));
  return bytes;
}
