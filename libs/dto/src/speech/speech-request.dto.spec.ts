import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { firstValidationProblem, type ValidationProblem } from '../common/validation-problem';
import { SpeechRequestDto } from './speech-request.dto';

function firstProblem(body: Record<string, unknown>): ValidationProblem | null {
  return firstValidationProblem(
    validateSync(plainToInstance(SpeechRequestDto, body), { whitelist: true, forbidNonWhitelisted: true }),
  );
}

const base = { model: 'demo/tts', input: 'Hello', voice: 'alloy' };

describe('SpeechRequestDto', () => {
  it('takes what the openai SDK sends', () => {
    expect(firstProblem(base)).toBeNull();
    expect(
      firstProblem({
        ...base,
        response_format: 'wav',
        speed: 1.5,
        instructions: 'Calm',
        stream_format: 'audio',
      }),
    ).toBeNull();
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['no input', { model: 'demo/tts', voice: 'alloy' }, 'input'],
    ['an empty input', { ...base, input: '' }, 'input'],
    ['no voice', { model: 'demo/tts', input: 'Hi' }, 'voice'],
    ['a voice object', { ...base, voice: { id: 'v1' } }, 'voice'],
    ['speed as a string', { ...base, speed: 'fast' }, 'speed'],
    ['streamed events', { ...base, stream_format: 'sse' }, 'stream_format'],
  ])('refuses %s, naming the field', (_label, body, param) => {
    expect(firstProblem(body)?.param).toBe(param);
  });
});
