import { join } from 'node:path';
import { loadCatalogue, ModelCatalogue } from '@gw/catalogue';

/** Media reads the shared model catalogue (descriptors, pricing, tiers) without importing inference. */
describe('the model catalogue as media reads it', () => {
  const catalogue = new ModelCatalogue(
    loadCatalogue(join(__dirname, '../../../config/catalogue.demo.json'), {
      MOCK_UPSTREAM_URL: 'http://127.0.0.1:4010',
      MOCK_UPSTREAM_API_KEY: 'key',
    }),
  );

  it('serves the image model on the media endpoint with its parameter descriptors and priced tiers', () => {
    const image = catalogue.servingModel('demo/image', '/v1/media');
    expect(image.entry.parameters['n']).toMatchObject({ min: 1, max: 10, default: 1 });
    expect(image.routes[0].pricing).toMatchObject({ per_request: '4.00', unitParam: 'n' });
    expect(image.routes[0].pricing.tiers).toContainEqual({ conditions: ['quality=high'], cost_rub: '16.00' });
  });

  it('lists the video model with its operations among the media models', () => {
    const media = catalogue.list({ endpoint: '/v1/media' }).data.map((model) => model.id);
    expect(media).toEqual(expect.arrayContaining(['demo/image', 'demo/video']));
    const operations = catalogue.find('demo/video')?.entry.operations ?? [];
    expect(operations.map((operation) => operation.id)).toEqual(
      expect.arrayContaining(['extend', 'upscale_1080p', 'upscale_4k']),
    );
    expect(operations.find((operation) => operation.id === 'extend')?.pricing).toMatchObject({
      video_per_second: '10.00',
      unitParam: 'duration',
    });
  });
});
