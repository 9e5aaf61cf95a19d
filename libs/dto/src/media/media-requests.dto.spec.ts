import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { firstValidationProblem, type ValidationProblem } from '../common/validation-problem';
import { CreateMediaGenerationDto, MediaOperationRequestDto } from './media-requests.dto';

function firstProblem(cls: new () => object, body: Record<string, unknown>): ValidationProblem | null {
  return firstValidationProblem(
    validateSync(plainToInstance(cls, body), { whitelist: true, forbidNonWhitelisted: true }),
  );
}

describe('CreateMediaGenerationDto', () => {
  it("takes a model with its params, whatever they are (the model's descriptors judge them)", () => {
    expect(
      firstProblem(CreateMediaGenerationDto, { model: 'demo/video', params: { prompt: 'x', anything: [1] } }),
    ).toBeNull();
    expect(
      firstProblem(CreateMediaGenerationDto, { model: 'demo/video', params: {}, async: true }),
    ).toBeNull();
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['no model', { params: {} }, 'model'],
    ['no params', { model: 'demo/video' }, 'params'],
    ['params as an array', { model: 'demo/video', params: ['x'] }, 'params'],
    ['async as a string', { model: 'demo/video', params: {}, async: 'yes' }, 'async'],
  ])('refuses %s', (_label, body, param) => {
    expect(firstProblem(CreateMediaGenerationDto, body)?.param).toBe(param);
  });
});

describe('MediaOperationRequestDto', () => {
  it.each(['extend', 'upscale_1080p', 'upscale_4k'])('takes %s', (operation) => {
    expect(firstProblem(MediaOperationRequestDto, { operation })).toBeNull();
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['no operation', {}, 'operation'],
    ['an unknown operation', { operation: 'upscale_8k' }, 'operation'],
    ['params as a string', { operation: 'extend', params: 'more' }, 'params'],
    ['async as a number', { operation: 'upscale_4k', async: 1 }, 'async'],
  ])('refuses %s', (_label, body, param) => {
    expect(firstProblem(MediaOperationRequestDto, body)?.param).toBe(param);
  });
});
