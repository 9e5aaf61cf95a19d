import { join } from 'node:path';
import { loadCatalogue, ModelCatalogue } from '@gw/catalogue';
import { checkParams } from './media-params';

const catalogue = new ModelCatalogue(
  loadCatalogue(join(__dirname, '../../../../config/catalogue.demo.json'), {
    MOCK_UPSTREAM_URL: 'http://127.0.0.1:4010',
    MOCK_UPSTREAM_API_KEY: 'key',
  }),
);
const parameters = (id: string) => catalogue.find(id)?.entry.parameters ?? {};
const extend =
  catalogue.find('demo/video')?.entry.operations.find((op) => op.id === 'extend')?.parameters ?? {};

describe('checkParams against the demo catalogue', () => {
  it('applies the defaults of the parameters a request leaves out', () => {
    expect(checkParams(parameters('demo/video'), { prompt: 'a cat' }, 'media')).toEqual({
      params: { prompt: 'a cat', aspect_ratio: '16:9', resolution: '720p', duration: 5, watermark: false },
      warnings: [],
    });
  });

  it('drops a parameter the model does not take and names it in a warning', () => {
    const checked = checkParams(parameters('demo/image'), { prompt: 'a cat', style: 'vivid' }, 'images');
    expect(checked.params).not.toHaveProperty('style');
    expect(checked.warnings).toEqual(['Parameter style is not supported by this model and was ignored']);
  });

  it.each([
    [
      'demo/image-classic',
      { prompt: 'x'.repeat(4001) },
      'images',
      'prompt',
      'prompt must be at most 4000 characters',
    ],
    [
      'demo/image',
      { prompt: 'x'.repeat(32001) },
      'images',
      'prompt',
      'prompt must be at most 32000 characters',
    ],
    ['demo/image', { prompt: 'a' }, 'media', 'params.prompt', null],
    ['demo/image', {}, 'media', 'params.prompt', 'prompt is required'],
    ['demo/image', { prompt: '  ' }, 'images', 'prompt', 'prompt must not be empty'],
    ['demo/image', { prompt: 'a', n: 11 }, 'images', 'n', 'n must be at most 10'],
    ['demo/image', { prompt: 'a', n: 0 }, 'images', 'n', 'n must be at least 1'],
    ['demo/image', { prompt: 'a', n: 1.5 }, 'images', 'n', 'n must be a whole number'],
    ['demo/image', { prompt: 'a', n: '2' }, 'images', 'n', 'n must be a number'],
    ['demo/image-classic', { prompt: 'a', n: 2 }, 'images', 'n', 'n must be at most 1'],
    ['demo/image', { prompt: 'a', size: '100x100' }, 'images', 'size', 'size must be one of auto, 256x256'],
    [
      'demo/image',
      { prompt: 'a', output_compression: 101 },
      'images',
      'output_compression',
      'output_compression must be at most 100',
    ],
    [
      'demo/image',
      { prompt: 'a', output_compression: -1 },
      'images',
      'output_compression',
      'output_compression must be at least 0',
    ],
    [
      'demo/image-classic',
      { prompt: 'a', quality: 'high' },
      'images',
      'quality',
      'quality must be one of standard, hd',
    ],
    ['demo/video', { prompt: 'a', duration: 11 }, 'media', 'params.duration', 'duration must be at most 10'],
    [
      'demo/video',
      { prompt: 'a', watermark: 'yes' },
      'media',
      'params.watermark',
      'watermark must be true or false',
    ],
    ['demo/tts', { prompt: 'a', speed: 3 }, 'speech', 'speed', 'speed must be at most 2'],
    ['demo/tts', { prompt: 'a', voice: 'bob' }, 'speech', 'voice', 'voice must be one of alloy, echo, nova'],
  ])('%s %j on %s: 400 on %s', (model, params, surface, param, message) => {
    const check = () => checkParams(parameters(model), params, surface as 'media' | 'images' | 'speech');
    if (message === null) {
      expect(check).not.toThrow();
      return;
    }
    expect(check).toThrow(
      expect.objectContaining({
        code: 'invalid_request',
        status: 400,
        param,
        message: expect.stringContaining(message),
      }),
    );
  });

  it('counts characters, not UTF-16 units, against max_length', () => {
    expect(() =>
      checkParams(parameters('demo/image-classic'), { prompt: '😀'.repeat(4000) }, 'images'),
    ).not.toThrow();
  });

  it("checks an operation's parameters: extend needs a prompt and takes 3 to 10 seconds", () => {
    expect(() => checkParams(extend, { duration: 5 }, 'media')).toThrow(
      expect.objectContaining({ param: 'params.prompt', message: 'prompt is required' }),
    );
    expect(() => checkParams(extend, { prompt: 'more', duration: 2 }, 'media')).toThrow(
      expect.objectContaining({ param: 'params.duration', message: 'duration must be at least 3' }),
    );
    expect(checkParams(extend, { prompt: 'more', seeds: 7 }, 'media').params).toEqual({
      prompt: 'more',
      seeds: 7,
      duration: 5,
    });
  });
});
