import { plainToInstance } from 'class-transformer';
import { DomainError } from '@gw/contracts';
import { SpeechRequestDto } from '@gw/dto';
import { inSpeechTerms, speechGenerationRequest } from './speech-request';
import { apiKeyPrincipal } from '@gw/testing';

const principal = apiKeyPrincipal();

describe('a speech API request as a media generation', () => {
  it("maps input to the model's prompt and response_format to its output_format", () => {
    const body = plainToInstance(SpeechRequestDto, {
      model: 'demo/tts',
      input: 'Hello',
      voice: 'nova',
      response_format: 'wav',
      speed: 1.25,
      instructions: 'Cheerful',
    });
    expect(speechGenerationRequest(principal, body)).toEqual({
      principal,
      model: 'demo/tts',
      params: { prompt: 'Hello', voice: 'nova', output_format: 'wav', speed: 1.25, instructions: 'Cheerful' },
      async: false,
      surface: 'speech',
    });
  });

  it('leaves out what the client did not send', () => {
    const body = plainToInstance(SpeechRequestDto, { model: 'demo/tts', input: 'Hi', voice: 'alloy' });
    expect(speechGenerationRequest(principal, body).params).toEqual({ prompt: 'Hi', voice: 'alloy' });
  });

  it("names a refused param as the client's field", () => {
    const refused = inSpeechTerms(
      new DomainError('invalid_request', 'prompt must be at most 5000 characters', 'prompt'),
    );
    expect(refused).toMatchObject({
      code: 'invalid_request',
      param: 'input',
      message: 'input must be at most 5000 characters',
    });
    expect(
      inSpeechTerms(
        new DomainError('invalid_request', 'output_format must be one of mp3, wav, ogg', 'output_format'),
      ),
    ).toMatchObject({ param: 'response_format', message: 'response_format must be one of mp3, wav, ogg' });
  });

  it('keeps every other error as it is', () => {
    const voice = new DomainError('invalid_request', 'voice must be one of alloy, echo, nova', 'voice');
    const broke = new DomainError('insufficient_balance', 'Insufficient balance');
    expect(inSpeechTerms(voice)).toBe(voice);
    expect(inSpeechTerms(broke)).toBe(broke);
  });
});
