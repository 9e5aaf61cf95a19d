import { Body, Controller, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { sleep } from '../chat/mock-answer';
import { hasCredentials } from '../chat/upstream-credentials';
import { encodeMp3, encodePcm, encodeWav } from './encoders/audio';
import { encodeOggOpus } from './encoders/ogg-opus';
import { answeredInjectedFailure, readMediaPrompt } from './media-prompt';
import { sendOpenAiError } from './openai-error';

interface OpenAiSpeechRequest {
  model?: unknown;
  input?: unknown;
  voice?: unknown;
  instructions?: unknown;
  response_format?: unknown;
  speed?: unknown;
}

/** The formats the mock can produce as real audio; aac and flac are refused with a 400. */
const SPEECH_FORMATS = {
  mp3: { contentType: 'audio/mpeg', encode: encodeMp3 },
  wav: { contentType: 'audio/wav', encode: encodeWav },
  pcm: { contentType: 'audio/pcm', encode: encodePcm },
  opus: { contentType: 'audio/ogg', encode: encodeOggOpus },
} as const;

/** Speech read aloud at about 16 characters a second. */
const MS_PER_CHARACTER = 60;

/**
 * `Mock Alpha`'s OpenAI `POST /audio/speech`: the audio bytes of the input's length (60 ms a
 * character of the text without markers, divided by `speed`), a quiet tone in WAV and PCM,
 * silent frames in MP3 and in Opus (Ogg).
 */
@ApiExcludeController()
@Controller('alpha/v1/audio')
export class MockSpeechController {
  @Post('speech')
  async speak(
    @Req() request: Request,
    @Body() body: OpenAiSpeechRequest,
    @Res() res: Response,
  ): Promise<void> {
    if (!hasCredentials(request)) return sendOpenAiError(res, 401, 'Missing API key');
    const { model, input, voice } = body ?? {};
    const voiceNamed = typeof voice === 'string' || typeof (voice as { id?: unknown })?.id === 'string';
    if (typeof model !== 'string' || typeof input !== 'string' || input.trim() === '' || !voiceNamed) {
      return sendOpenAiError(res, 400, 'model, input and voice are required');
    }
    const formatName = body.response_format ?? 'mp3';
    const format =
      typeof formatName === 'string' && Object.hasOwn(SPEECH_FORMATS, formatName)
        ? SPEECH_FORMATS[formatName as keyof typeof SPEECH_FORMATS]
        : null;
    if (!format)
      return sendOpenAiError(
        res,
        400,
        `The mock does not produce response_format ${JSON.stringify(formatName)}`,
      );
    const speed = body.speed ?? 1;
    if (typeof speed !== 'number' || speed < 0.25 || speed > 4) {
      return sendOpenAiError(res, 400, 'speed must be from 0.25 to 4.0', 'invalid_request_error', 'speed');
    }
    const prompt = readMediaPrompt(input);
    await sleep(prompt.faults.delayMs);
    if (answeredInjectedFailure(res, prompt.faults)) return;
    const durationMs = Math.max(1, Math.round((prompt.text.length * MS_PER_CHARACTER) / speed));
    res.status(200).type(format.contentType).send(format.encode(durationMs));
  }
}
