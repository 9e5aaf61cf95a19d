import { renderBanner } from './banner';

describe('renderBanner', () => {
  const state = {
    jwtSecret: 'secret',
    adminToken: 'adm-token',
    account: {
      organizationId: 'org',
      userId: 'user',
      email: 'demo@gateway.local',
      password: 'pw',
      apiKey: 'sk-gw-demo',
    },
  };

  const demoModels = { chat: 'demo/chat', embedding: 'demo/embed-small', image: 'demo/image' };

  it('prints the key, the admin token and one curl line per demo flow', () => {
    const banner = renderBanner('http://localhost:3000/api', state, demoModels);
    expect(banner).toContain('Demo API key   sk-gw-demo');
    expect(banner).toContain('Admin token    adm-token');
    const curls = banner.split('\n').filter((line) => line.trim().startsWith('curl '));
    expect(curls.map((line) => line.match(/\/api(\/v1\/[a-z/]+)/)?.[1])).toEqual([
      '/v1/models',
      '/v1/chat/completions',
      '/v1/chat/completions',
      '/v1/embeddings',
      '/v1/images/generations',
      '/v1/balance',
      '/v1/history/generations',
    ]);
    expect(curls[2]).toContain('"stream":true');
    expect(curls[3]).toContain('"model":"demo/embed-small"');
    expect(curls[4]).toContain('"model":"demo/image"');
    expect(curls.slice(1).every((line) => line.includes('Authorization: Bearer sk-gw-demo'))).toBe(true);
  });

  it('prints only the admin token before the demo account exists', () => {
    expect(renderBanner('http://h/api', { ...state, account: null }, demoModels)).toBe(
      'Gateway at http://h/api\nAdmin token: adm-token\n',
    );
  });

  it('names the models the catalogue serves, and leaves out a kind it serves none of', () => {
    const banner = renderBanner('http://h/api', state, {
      chat: 'acme/assistant',
      embedding: 'acme/vectors',
      image: 'acme/painter',
    });
    expect(banner).toContain('"model":"acme/assistant"');
    expect(banner).toContain('"model":"acme/vectors"');
    expect(banner).toContain('"model":"acme/painter"');
    expect(banner).not.toContain('demo/');
    const withoutEither = renderBanner('http://h/api', state, { chat: null, embedding: null, image: null });
    expect(withoutEither).not.toContain('/v1/chat/completions');
    expect(withoutEither).not.toContain('/v1/embeddings');
    expect(withoutEither).not.toContain('/v1/images/generations');
    expect(withoutEither).toContain('/v1/balance');
  });
});
