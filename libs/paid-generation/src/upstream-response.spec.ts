import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { UpstreamFailure } from './upstream-failure';
import { retryAfterSeconds, upstreamJson, upstreamStatusFailure } from './upstream-response';

describe('reading a provider’s answer', () => {
  let server: Server;
  let url: string;
  let answer: { status: number; headers: Record<string, string>; body: string };

  beforeAll(async () => {
    server = createServer((_req, res) => res.writeHead(answer.status, answer.headers).end(answer.body));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  const respond = (status: number, body: string, headers: Record<string, string> = {}) => {
    answer = { status, headers, body };
    return request(url);
  };

  it('turns a 429 into a status failure with the provider’s error object and Retry-After', async () => {
    const failure = await upstreamStatusFailure(
      await respond(
        429,
        JSON.stringify({ error: { message: 'slow down', code: 'rate_limit', param: null } }),
        {
          'retry-after': '7',
        },
      ),
    );
    expect(failure).toBeInstanceOf(UpstreamFailure);
    expect(failure).toMatchObject({
      kind: 'status',
      httpStatus: 429,
      retryAfterSeconds: 7,
      providerError: { message: 'slow down', code: 'rate_limit', param: null },
    });
    expect(failure.errorClass).toBe('rate_limited');
  });

  it('keeps the status of an answer whose body is no JSON, without an error object', async () => {
    const failure = await upstreamStatusFailure(await respond(502, '<html>bad gateway</html>'));
    expect(failure).toMatchObject({
      kind: 'status',
      httpStatus: 502,
      providerError: null,
      retryAfterSeconds: null,
    });
    expect(failure.message).toBe('Upstream answered 502: <html>bad gateway</html>');
  });

  it('reads a JSON body, and calls one that is not JSON a protocol failure', async () => {
    await expect(upstreamJson(await respond(200, '{"id":"v1"}'))).resolves.toEqual({ id: 'v1' });
    await expect(upstreamJson(await respond(200, 'not json'))).rejects.toMatchObject({ kind: 'protocol' });
  });

  it.each([
    [{ 'retry-after': '2.5' }, 3],
    [{ 'retry-after-ms': '1500' }, 2],
    [{ 'retry-after': '86400' }, 3_600],
    [{ 'retry-after': 'soon' }, null],
    [{}, null],
  ])('reads Retry-After %j as %p seconds', (headers, seconds) => {
    expect(retryAfterSeconds(headers)).toBe(seconds);
  });
});
