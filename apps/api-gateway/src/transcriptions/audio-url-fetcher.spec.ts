import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { type DomainError } from '@gw/contracts';
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
