import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { firstValidationProblem, type ValidationProblem } from '../common/validation-problem';
import { ImageGenerationRequestDto } from './image-generation.dto';

function firstProblem(body: Record<string, unknown>): ValidationProblem | null {
  return firstValidationProblem(
    validateSync(plainToInstance(ImageGenerationRequestDto, body), {
      whitelist: true,
      forbidNonWhitelisted: true,
    }),
  );
}

const base = { model: 'demo/image', prompt: 'A lighthouse at dawn' };

describe('ImageGenerationRequestDto', () => {
  it.each<[string, Record<string, unknown>]>([
    ['model and prompt alone', base],
    [
      'every field at its limits',
      {
        ...base,
        prompt: 'p'.repeat(32_000),
        n: 10,
        size: '1792x1024',
        quality: 'high',
        response_format: 'b64_json',
        style: 'natural',
        output_format: 'webp',
        background: 'transparent',
        output_compression: 100,
        user: 'u'.repeat(128),
      },
    ],
    ['the smallest values', { ...base, n: 1, output_compression: 0, size: 'auto', quality: 'standard' }],
    ['the older quality', { ...base, quality: 'hd', response_format: 'url' }],
  ])('takes %s', (_label, body) => {
    expect(firstProblem(body)).toBeNull();
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['no model', { prompt: 'x' }, 'model'],
    ['no prompt', { model: 'demo/image' }, 'prompt'],
    ['an empty prompt', { ...base, prompt: '' }, 'prompt'],
    ['a prompt over 32000 characters', { ...base, prompt: 'p'.repeat(32_001) }, 'prompt'],
    ['n 0', { ...base, n: 0 }, 'n'],
    ['n 11', { ...base, n: 11 }, 'n'],
    ['a fractional n', { ...base, n: 1.5 }, 'n'],
    ['n as a string', { ...base, n: '2' }, 'n'],
    ['an unknown size', { ...base, size: '100x100' }, 'size'],
    ['an unknown quality', { ...base, quality: 'ultra' }, 'quality'],
    ['an unknown response_format', { ...base, response_format: 'binary' }, 'response_format'],
    ['an unknown style', { ...base, style: 'noir' }, 'style'],
    ['an unknown output_format', { ...base, output_format: 'gif' }, 'output_format'],
    ['an unknown background', { ...base, background: 'none' }, 'background'],
    ['output_compression below 0', { ...base, output_compression: -1 }, 'output_compression'],
    ['output_compression over 100', { ...base, output_compression: 101 }, 'output_compression'],
    ['a user over 128 characters', { ...base, user: 'u'.repeat(129) }, 'user'],
    ['a field the interface does not have', { ...base, moderation: 'low' }, 'moderation'],
  ])('refuses %s, naming the field', (_label, body, param) => {
    expect(firstProblem(body)?.param).toBe(param);
  });
});
