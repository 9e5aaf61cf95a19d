import { type CreateMediaGenerationRequest, DomainError, type Principal } from '@gw/contracts';
import type { SpeechRequestDto } from '@gw/dto';

/** The TTS model's params the speech API names otherwise (config/catalogue.demo.json, demo/tts). */
const FIELD_OF_PARAM: Readonly<Record<string, string>> = {
  prompt: 'input',
  output_format: 'response_format',
};

/** OpenAI's speech request as a media generation of a TTS model: `input` is its `prompt`, `response_format` its `output_format`. */
export function speechGenerationRequest(
  principal: Principal,
  body: SpeechRequestDto,
): CreateMediaGenerationRequest {
  const fields: Record<string, unknown> = {
    prompt: body.input,
    voice: body.voice,
    speed: body.speed,
    output_format: body.response_format,
    instructions: body.instructions,
  };
  const params = Object.fromEntries(
    Object.entries(fields).filter(([, value]) => value !== undefined && value !== null),
  );
  return { principal, model: body.model, params, async: false, surface: 'speech' };
}

/** A refusal of a model param, named as the speech request's field the client sent (`prompt` is its `input`). */
export function inSpeechTerms(err: unknown): unknown {
  if (!(err instanceof DomainError) || err.param === null) return err;
  const field = FIELD_OF_PARAM[err.param];
  if (field === undefined) return err;
  const message = err.message.startsWith(err.param)
    ? `${field}${err.message.slice(err.param.length)}`
    : err.message;
  return new DomainError(err.code, message, field, err.retryAfterSeconds);
}
