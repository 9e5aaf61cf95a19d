import { loadEnv } from '@gw/platform';
import { EmbeddedEnv } from './embedded.env';

describe('EmbeddedEnv', () => {
  it('binds the loopback interface unless HOST says otherwise', () => {
    expect(loadEnv(EmbeddedEnv, {}).HOST).toBe('127.0.0.1');
    expect(loadEnv(EmbeddedEnv, { HOST: '0.0.0.0' }).HOST).toBe('0.0.0.0');
  });
});
