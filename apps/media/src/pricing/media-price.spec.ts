import { join } from 'node:path';
import { loadCatalogue, ModelCatalogue } from '@gw/catalogue';
import type { GenerationRequestType } from '@gw/contracts';
import { checkParams } from '../params/media-params';
import { mediaPrice, mediaUsage } from './media-price';

const catalogue = new ModelCatalogue(
  loadCatalogue(join(__dirname, '../../../../config/catalogue.demo.json'), {
    MOCK_UPSTREAM_URL: 'http://127.0.0.1:4010',
    MOCK_UPSTREAM_API_KEY: 'key',
  }),
);

/** The price of a request as creation computes it: the model's defaults applied first. */
function price(id: string, params: Record<string, unknown>): string {
  const model = catalogue.find(id);
  if (!model) throw new Error(id);
  const checked = checkParams(model.entry.parameters, params, 'media');
  return mediaPrice(
    model.routes[0].pricing,
    model.entry.type as GenerationRequestType,
    checked.params,
  ).toFixed();
}

describe('media prices from the demo catalogue', () => {
  it.each([
    ['demo/image', { prompt: 'a' }, '4'],
    ['demo/image', { prompt: 'a', n: 3 }, '12'],
    ['demo/image', { prompt: 'a', n: 2, quality: 'medium' }, '16'],
    ['demo/image', { prompt: 'a', n: 10, quality: 'high' }, '160'],
    ['demo/image-classic', { prompt: 'a' }, '6'],
    ['demo/image-classic', { prompt: 'a', quality: 'hd' }, '12'],
    ['demo/video', { prompt: 'a' }, '50'],
    ['demo/video', { prompt: 'a', duration: 8, resolution: '1080p' }, '160'],
    // 1500 RUB per million characters: 10 characters cost 0.015.
    ['demo/tts', { prompt: 'Hello, you' }, '0.015'],
  ])('%s %j costs %s', (id, params, expected) => {
    expect(price(id, params)).toBe(expected);
  });

  it('prices the operations by their own pricing', () => {
    const operations = catalogue.find('demo/video')?.entry.operations ?? [];
    const of = (id: string) => operations.find((op) => op.id === id)?.pricing;
    expect(mediaPrice(of('extend')!, 'video', { prompt: 'more', duration: 7 }).toFixed()).toBe('70');
    expect(mediaPrice(of('upscale_1080p')!, 'video', {}).toFixed()).toBe('15');
    expect(mediaPrice(of('upscale_4k')!, 'video', {}).toFixed()).toBe('40');
  });

  it('reports the usage object with the cost in both fields', () => {
    expect(mediaUsage('video', { duration: 5 }, '50')).toEqual({
      output_units: 1,
      duration_seconds: 5,
      cost_rub: 50,
      cost: 50,
    });
    expect(mediaUsage('audio', { prompt: 'Hello' }, '0.0075')).toMatchObject({
      input_units: 5,
      cost: 0.0075,
    });
  });
});
