import { type INestApplication } from '@nestjs/common';
import { InProcessBus } from '@gw/platform';
import { ApiGatewayEnv, createApiGatewayApp } from '../src/api-gateway.module';
import { silentLogger } from '@gw/testing';

// The checks run before any route calls a service, so the gateway alone (no service behind its
// bus) answers them over real HTTP.
const ADMIN_TOKEN = 'admin-token-of-the-request-parsing-spec';

interface ErrorBody {
  error: { message: string; type: string; code: string; param: string | null };
}

describe('request parsing at the HTTP edge', () => {
  let gateway: INestApplication;
  let origin: string;

  beforeAll(async () => {
    const env = Object.assign(new ApiGatewayEnv(), {
      JWT_SECRET: 'request-parsing-spec-secret-42',
      ADMIN_TOKEN,
    });
    gateway = await createApiGatewayApp(
      { env, transport: { kind: 'in-process', bus: new InProcessBus(), rpcTimeoutMs: 500 } },
      silentLogger,
    );
    await gateway.listen(0, '127.0.0.1');
    origin = `http://127.0.0.1:${(gateway.getHttpServer().address() as { port: number }).port}`;
  });

  afterAll(() => gateway.close());

  async function post(path: string, body: string, contentType: string | null = 'application/json') {
    const headers: Record<string, string> = { authorization: `Bearer ${ADMIN_TOKEN}` };
    if (contentType) headers['content-type'] = contentType;
    const response = await fetch(`${origin}${path}`, { method: 'POST', headers, body });
    return {
      status: response.status,
      type: response.headers.get('content-type'),
      body: (await response.json()) as ErrorBody,
    };
  }

  it('refuses a body nested deeper than 128 levels with a 400, not a stack overflow', async () => {
    const deep = `{"name":${'['.repeat(5000)}${']'.repeat(5000)}}`;
    const reply = await post('/api/admin/organizations', deep);
    expect(reply.status).toBe(400);
    expect(reply.body.error).toMatchObject({ code: 'invalid_request', type: 'invalid_request_error' });
    expect(reply.body.error.message).toContain('deeper than 128 levels');
  });

  it('names the field that holds a NUL character', async () => {
    const reply = await post('/api/admin/organizations', JSON.stringify({ name: 'a\u0000b' }));
    expect(reply.status).toBe(400);
    expect(reply.body.error).toMatchObject({
      code: 'invalid_request',
      param: 'name',
      message: 'name must not contain NUL characters',
    });
  });

  it('names a query parameter that holds a NUL character', async () => {
    const response = await fetch(`${origin}/api/v1/models?type=chat%00`);
    expect(response.status).toBe(400);
    expect(((await response.json()) as ErrorBody).error.param).toBe('type');
  });

  it('answers 404 for an id with a NUL character in the path', async () => {
    const response = await fetch(`${origin}/api/v1/history/generations/gen-%00`, {
      headers: { authorization: 'Bearer x' },
    });
    expect(response.status).toBe(404);
    expect(((await response.json()) as ErrorBody).error.code).toBe('not_found');
  });

  it('refuses a reserved key name anywhere in the body instead of crashing the transformer', async () => {
    const reply = await post(
      '/api/admin/organizations',
      '{"name":"acme","x":{"properties":{"constructor":{"type":"string"}}}}',
    );
    expect(reply.status).toBe(400);
    expect(reply.body.error.param).toBe('x.properties.constructor');
  });

  it('answers 400 naming the field for a lone UTF-16 surrogate in any string or key', async () => {
    const lone = await post('/api/admin/organizations', '{"name":"acme\\ud800"}');
    expect(lone.status).toBe(400);
    expect(lone.body.error).toMatchObject({
      code: 'invalid_request',
      param: 'name',
      message: 'name must be valid Unicode text (it holds a lone UTF-16 surrogate)',
    });
    const key = await post('/api/admin/organizations', '{"name":"acme","x":{"\\udc00":1}}');
    expect(key.status).toBe(400);
    expect(key.body.error.code).toBe('invalid_request');
  });

  it('answers 400, not 500, for a property name of 100,000 characters', async () => {
    const name = 'k'.repeat(100_000);
    const reply = await post('/api/admin/organizations', JSON.stringify({ name: 'acme', [name]: 1 }));
    expect(reply.status).toBe(400);
    expect(reply.body.error.code).toBe('invalid_request');
  });

  it('does not say which framework it runs on', async () => {
    const response = await fetch(`${origin}/api/v1/models`);
    expect(response.headers.get('x-powered-by')).toBeNull();
  });

  it('reads a text/plain or untyped body as JSON, as fetch sends a string body', async () => {
    for (const type of ['text/plain;charset=UTF-8', null]) {
      const reply = await post('/api/admin/organizations', JSON.stringify({ name: 5 }), type);
      expect(reply.status).toBe(400);
      expect(reply.body.error.param).toBe('name');
    }
  });

  it('answers 400 unsupported_media_type for a body in a media type it cannot read, multipart included where no route reads it', async () => {
    const reply = await post('/api/admin/organizations', '<name>acme</name>', 'application/xml');
    expect(reply.status).toBe(400);
    expect(reply.body.error).toMatchObject({ code: 'unsupported_media_type', type: 'invalid_request_error' });
    const form = new FormData();
    form.append('name', 'acme');
    const response = await fetch(`${origin}/api/admin/organizations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      body: form,
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { code: 'unsupported_media_type' } });
  });

  it("answers /v1/messages in Anthropic's error shape from the checks made before routing too", async () => {
    const unreadable = await fetch(`${origin}/api/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'text/html' },
      body: '<p>hi</p>',
    });
    expect(unreadable.status).toBe(400);
    expect(await unreadable.json()).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error', code: 'unsupported_media_type' },
    });
    const nulInQuery = await fetch(`${origin}/api/v1/messages/?beta=%00`, { method: 'POST' });
    expect(nulInQuery.status).toBe(400);
    expect(await nulInQuery.json()).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error', code: 'invalid_request', param: 'beta' },
    });
  });

  it('says that a body that does not parse is not valid JSON', async () => {
    const reply = await post('/api/admin/organizations', '{"name": ');
    expect(reply.status).toBe(400);
    expect(reply.body.error).toMatchObject({
      code: 'invalid_request',
      message: 'The request body is not valid JSON',
    });
  });

  it('refuses a body that is JSON but not an object', async () => {
    for (const body of ['null', '[1,2]', '5', '"text"']) {
      const reply = await post('/api/admin/organizations', body);
      expect(reply.status).toBe(400);
      expect(reply.body.error.code).toBe('invalid_request');
      expect(reply.body.error.message).toMatch(/must be a JSON object/);
    }
  });

  it('lets browser apps of any origin call the API with a bearer key', async () => {
    const preflight = await fetch(`${origin}/api/v1/chat/completions`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://app.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization,content-type,x-stainless-os',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-headers')).toBe(
      'authorization,content-type,x-stainless-os',
    );
    const models = await fetch(`${origin}/api/v1/nothing`, { headers: { origin: 'https://app.example' } });
    expect(models.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('answers unknown paths outside /api with the JSON envelope, not an HTML page', async () => {
    for (const path of ['/', '/v1/chat/completions', '/api/nothing-here']) {
      const response = await fetch(`${origin}${path}`, { method: 'POST' });
      expect(response.status).toBe(404);
      expect(response.headers.get('content-type')).toContain('application/json');
      expect(((await response.json()) as ErrorBody).error.code).toBe('not_found');
    }
  });
});
