import { loadEnv, LogLevelEnv } from '@gw/platform';
import { WithCatalogue } from './catalogue.env';

class CatalogueReader extends WithCatalogue(LogLevelEnv) {}

describe('WithCatalogue', () => {
  it('defaults to the demo catalogue and the local mock-upstream', () => {
    expect(loadEnv(CatalogueReader, {})).toMatchObject({
      CATALOGUE_FILE: 'config/catalogue.demo.json',
      MOCK_UPSTREAM_URL: 'http://127.0.0.1:4010',
      MOCK_UPSTREAM_API_KEY: 'mock-upstream-key',
    });
  });

  it('takes the file and the variables the environment sets', () => {
    expect(
      loadEnv(CatalogueReader, {
        CATALOGUE_FILE: '/etc/gateway/catalogue.json',
        MOCK_UPSTREAM_URL: 'http://mock:4010',
        MOCK_UPSTREAM_API_KEY: 'other-key',
      }),
    ).toMatchObject({
      CATALOGUE_FILE: '/etc/gateway/catalogue.json',
      MOCK_UPSTREAM_URL: 'http://mock:4010',
      MOCK_UPSTREAM_API_KEY: 'other-key',
    });
  });
});
