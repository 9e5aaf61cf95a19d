import { type LookupAddress } from 'node:dns';
import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { Agent, request } from 'undici';
import { type DomainError } from '@gw/contracts';
import { DnsStub, type DnsRecords } from '@gw/testing';
import { isForbiddenAddress } from './address-policy';
import { AudioUrlFetcher } from './audio-url-fetcher';

describe('AudioUrlFetcher', () => {
  let server: Server;
  let base: string;
  const fetchers: AudioUrlFetcher[] = [];
  const fetcher = (allowHosts: string[], timeoutMs = 2_000, maxBytes = 1_000) => {
    const created = new AudioUrlFetcher({ allowHosts: new Set(allowHosts), timeoutMs, maxBytes });
    fetchers.push(created);
    return created;
  };
  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => null,
      (err: DomainError) => ({ code: err.code, param: err.param, message: err.message }),
    );

  beforeAll(async () => {
    server = createServer((request, response) => {
      if (request.url === '/tone.wav') return void response.end('RIFF....WAVE');
      if (request.url === '/to-metadata')
        return void response.writeHead(302, { location: 'http://169.254.169.254/latest' }).end();
      if (request.url === '/to-tone') return void response.writeHead(301, { location: '/tone.wav' }).end();
      if (request.url === '/big') return void response.end(Buffer.alloc(1_001));
      if (request.url === '/big-chunked') {
        // No content-length: the bound must hold while reading.
        response.write(Buffer.alloc(600));
        return void setTimeout(() => response.end(Buffer.alloc(600)), 20);
      }
      if (request.url === '/slow') return void setTimeout(() => response.end('late'), 1_000);
      response.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await Promise.all(fetchers.map((f) => f.close()));
    await new Promise((resolve) => server.close(resolve));
  });

  it('refuses loopback unless the host is allowed', async () => {
    expect(await refusal(fetcher([]).fetch(`${base}/tone.wav`))).toMatchObject({
      code: 'invalid_request',
      param: 'file',
      message: expect.stringContaining('127.0.0.1'),
    });
    const fetched = await fetcher(['127.0.0.1']).fetch(`${base}/tone.wav`);
    expect(fetched).toEqual({ bytes: Buffer.from('RIFF....WAVE'), filename: 'tone.wav' });
  });

  it('refuses a name that resolves to loopback at connect time', async () => {
    const url = base.replace('127.0.0.1', 'localhost');
    expect(await refusal(fetcher([]).fetch(`${url}/tone.wav`))).toMatchObject({
      code: 'invalid_request',
      param: 'file',
      message: expect.stringContaining('not fetched'),
    });
  });

  it('follows redirects, checking every hop', async () => {
    expect((await fetcher(['127.0.0.1']).fetch(`${base}/to-tone`)).filename).toBe('tone.wav');
    expect(await refusal(fetcher(['127.0.0.1']).fetch(`${base}/to-metadata`))).toMatchObject({
      param: 'file',
      message: expect.stringContaining('169.254.169.254'),
    });
  });

  it('bounds size and time, and reports an error status', async () => {
    expect(await refusal(fetcher(['127.0.0.1']).fetch(`${base}/big`))).toMatchObject({
      code: 'payload_too_large',
      param: 'file',
    });
    expect(await refusal(fetcher(['127.0.0.1']).fetch(`${base}/big-chunked`))).toMatchObject({
      code: 'payload_too_large',
      param: 'file',
    });
    expect(await refusal(fetcher(['127.0.0.1'], 200).fetch(`${base}/slow`))).toMatchObject({
      code: 'invalid_request',
      message: expect.stringContaining('200 ms'),
    });
    expect(await refusal(fetcher(['127.0.0.1']).fetch(`${base}/missing`))).toMatchObject({
      code: 'invalid_request',
      message: expect.stringContaining('404'),
    });
  });

  it.each(['ftp://example.com/a.wav', 'file:///etc/passwd', 'http://user:pw@example.com/a.wav', 'not a url'])(
    'refuses %s',
    async (url) => {
      expect(await refusal(fetcher([]).fetch(url))).toMatchObject({ code: 'invalid_request', param: 'file' });
    },
  );
});

/**
 * Names resolved by a DNS server on 127.0.0.1 (a stub the test controls, answering with TTL 0), so
 * that a name can resolve to any address, and to another one at its next question (rebinding). The
 * fetcher's lookup is pointed at the stub; everything else (undici, the sockets, the local HTTP
 * server that a refused fetch must never reach) is real.
 */
describe('AudioUrlFetcher under a DNS stub', () => {
  /** Any public address: where a rebinding name points first. Whether it answers does not matter. */
  const PUBLIC = '93.184.216.34';
  let dns: DnsStub;
  let server: Server;
  let port: number;
  /** Every request the local server received, as `METHOD host path`. */
  const hits: string[] = [];
  const fetchers: AudioUrlFetcher[] = [];
  const fetcher = (allowHosts: string[] = [], timeoutMs = 2_000, maxBytes = 1_000) => {
    const created = new AudioUrlFetcher({
      allowHosts: new Set(allowHosts),
      timeoutMs,
      maxBytes,
      lookup: dns.lookup(),
    });
    fetchers.push(created);
    return created;
  };
  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => null,
      (err: DomainError) => ({ code: err.code, param: err.param, message: err.message }),
    );
  const NOT_FETCHED = {
    code: 'invalid_request',
    param: 'file',
    message: expect.stringContaining('not fetched'),
  };
  const url = (name: string, path = '/tone.wav') => `http://${name}:${port}${path}`;

  beforeAll(async () => {
    dns = await DnsStub.start();
    server = createServer((request, response) => {
      hits.push(`${request.method} ${request.headers.host} ${request.url}`);
      if (request.url === '/tone.wav') return void response.end('RIFF....WAVE');
      if (request.url === '/to-inside')
        return void response.writeHead(302, { location: url('inside.test') }).end();
      if (request.url === '/big') return void response.end(Buffer.alloc(1_001));
      response.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  beforeEach(() => {
    hits.length = 0;
  });

  afterAll(async () => {
    await Promise.all(fetchers.map((f) => f.close()));
    await dns.close();
    await new Promise((resolve) => server.close(resolve));
  });

  it.each<[string, DnsRecords]>([
    ['IPv4 loopback', { a: ['127.0.0.1'] }],
    ['the rest of 127/8', { a: ['127.8.9.10'] }],
    ['this network', { a: ['0.0.0.0'] }],
    ['private 10/8', { a: ['10.0.0.7'] }],
    ['private 172.16/12', { a: ['172.20.0.1'] }],
    ['private 192.168/16', { a: ['192.168.1.1'] }],
    ['CGNAT', { a: ['100.64.0.1'] }],
    ['link-local', { a: ['169.254.1.1'] }],
    ['the cloud metadata endpoint', { a: ['169.254.169.254'] }],
    ['IPv6 loopback', { aaaa: ['::1'] }],
    ['IPv6 unique local', { aaaa: ['fd00::1'] }],
    ['the AWS IPv6 metadata endpoint', { aaaa: ['fd00:ec2::254'] }],
    ['IPv6 link-local', { aaaa: ['fe80::1'] }],
    ['IPv4-mapped loopback', { aaaa: ['::ffff:127.0.0.1'] }],
    ['IPv4-mapped metadata', { aaaa: ['::ffff:169.254.169.254'] }],
    ['IPv4-mapped public address', { aaaa: ['::ffff:8.8.8.8'] }],
    ['IPv4-compatible loopback', { aaaa: ['::127.0.0.1'] }],
    ['NAT64 of loopback', { aaaa: ['64:ff9b::7f00:1'] }],
    ['a public A and a loopback AAAA', { a: [PUBLIC], aaaa: ['::1'] }],
    ['a public address then a private one', { a: [PUBLIC, '10.0.0.1'] }],
  ])('refuses a name that resolves to %s, without connecting', async (_label, records) => {
    const name = `${_label.replace(/[^a-z0-9]+/gi, '-').toLowerCase()}.test`;
    dns.set(name, records);
    expect(await refusal(fetcher().fetch(url(name)))).toMatchObject(NOT_FETCHED);
    expect(dns.queriesFor(name).length).toBeGreaterThan(0);
    expect(hits).toEqual([]);
  });

  it.each([
    '[::ffff:127.0.0.1]',
    '[::ffff:7f00:1]',
    '[::127.0.0.1]',
    '[::1]',
    '[64:ff9b::7f00:1]',
    '2130706433',
    '0x7f.1',
    '127.1',
  ])(
    'refuses the literal address %s, in any of its spellings, without resolving or connecting',
    async (host) => {
      const before = dns.queries.length;
      expect(await refusal(fetcher().fetch(url(host)))).toMatchObject(NOT_FETCHED);
      expect(dns.queries.length).toBe(before);
      expect(hits).toEqual([]);
    },
  );

  it('fetches a name on the allow list through the same resolver (the stub path does connect)', async () => {
    dns.set('audio.internal', { a: ['127.0.0.1'] });
    expect(await fetcher(['audio.internal']).fetch(url('audio.internal'))).toEqual({
      bytes: Buffer.from('RIFF....WAVE'),
      filename: 'tone.wav',
    });
    expect(hits).toEqual([`GET audio.internal:${port} /tone.wav`]);
  });

  it('a check-then-fetch is fooled by the rebinding stub (the attack the next test withstands)', async () => {
    dns.set('control.test', [{ a: [PUBLIC] }, { a: ['127.0.0.1'] }]);
    const lookup = dns.lookup();
    const resolved = (hostname: string) =>
      new Promise<LookupAddress[]>((resolve, reject) =>
        lookup(hostname, { family: 4 }, (err, addresses) => (err ? reject(err) : resolve(addresses))),
      );
    // The check sees the public address...
    expect((await resolved('control.test')).some((entry) => isForbiddenAddress(entry.address))).toBe(false);
    // ...and a fetch that resolves again is handed loopback and reaches the local server.
    const agent = new Agent({
      connect: {
        lookup: (hostname, options, callback) =>
          void resolved(hostname).then((addresses) =>
            options.all
              ? (callback as unknown as (err: null, all: LookupAddress[]) => void)(null, addresses)
              : callback(null, addresses[0].address, addresses[0].family),
          ),
      },
    });
    try {
      const response = await request(url('control.test'), { dispatcher: agent });
      expect(await response.body.text()).toBe('RIFF....WAVE');
    } finally {
      await agent.close();
    }
    expect(hits).toEqual([`GET control.test:${port} /tone.wav`]);
  });

  it.each<[string, DnsRecords]>([
    ['127.0.0.1', { a: ['127.0.0.1'] }],
    ['169.254.169.254', { a: ['169.254.169.254'] }],
    ['::ffff:127.0.0.1', { aaaa: ['::ffff:127.0.0.1'] }],
    ['fd00::', { aaaa: ['fd00::'] }],
  ])(
    'checks the very answer it connects with: a name answering public, then %s, never reaches it',
    async (label, rebound) => {
      const name = `rebind-${label.replace(/[^a-z0-9]+/gi, '-')}.test`;
      dns.set(name, [{ a: [PUBLIC] }, rebound]);
      const rebinding = fetcher([], 1_000);
      // The first connection goes to the public address it was given (answered or not, here it is
      // no local server); one question of each type was asked, none of them a separate check.
      await refusal(rebinding.fetch(url(name)));
      expect(dns.queriesFor(name).filter((query) => query.type === 'A')).toHaveLength(1);
      // The next connection is handed the private address and refuses it at connect time.
      expect(await refusal(rebinding.fetch(url(name)))).toMatchObject(NOT_FETCHED);
      expect(hits).toEqual([]);
    },
  );

  it('refuses a redirect to a name that resolves to loopback, after fetching the first hop', async () => {
    dns.set('inside.test', { a: ['127.0.0.1'] });
    expect(await refusal(fetcher(['127.0.0.1']).fetch(`http://127.0.0.1:${port}/to-inside`))).toMatchObject(
      NOT_FETCHED,
    );
    expect(dns.queriesFor('inside.test').length).toBeGreaterThan(0);
    expect(hits).toEqual([`GET 127.0.0.1:${port} /to-inside`]);
  });

  it('gives up within its time bound when the DNS server never answers', async () => {
    // undici does not end a request aborted while its connection is still being made: without the
    // fetcher's own bound this took the connect timeout rounded up to undici's timer (about 1 s).
    dns.set('silent.test', 'silent');
    const started = Date.now();
    expect(await refusal(fetcher([], 300).fetch(url('silent.test')))).toMatchObject({
      code: 'invalid_request',
      message: expect.stringContaining('300 ms'),
    });
    expect(Date.now() - started).toBeLessThan(700);
  });

  it('bounds the size of what an allowed name answers', async () => {
    dns.set('big.internal', { a: ['127.0.0.1'] });
    expect(await refusal(fetcher(['big.internal']).fetch(url('big.internal', '/big')))).toMatchObject({
      code: 'payload_too_large',
      param: 'file',
    });
  });
});
