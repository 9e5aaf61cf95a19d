import { Body, Controller, Post, Req, Res, UploadedFile, UseInterceptors } from '@nestjs/common';
import { FileInterceptor } from '@nestjs/platform-express';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { hasCredentials } from '../chat/upstream-credentials';
import { mockDurationSeconds, mockSubtitles, mockTranscription } from './mock-transcription';

interface UploadedAudio {
  buffer: Buffer;
}

/** Multipart fields as multer gives them: `name[]` and `name[0]` both arrive as arrays under `name`. */
interface TranscriptionForm {
  model?: string;
  response_format?: string;
  language?: string;
  prompt?: string;
  temperature?: string;
  timestamp_granularities?: string[];
  include?: string[];
  known_speaker_names?: string[];
}

const MAX_UPLOAD_BYTES = 26 * 1024 * 1024;

/**
 * `Mock Alpha`'s OpenAI-wire `POST /audio/transcriptions`: a fixed transcript spread over the
 * audio's duration (from the WAV header, otherwise the byte length), in every response_format.
 * `[[fail:<status>]]` in the prompt answers that status.
 */
@ApiExcludeController()
@Controller('alpha/v1/audio')
export class MockTranscriptionsController {
  @Post('transcriptions')
  @UseInterceptors(FileInterceptor('file', { limits: { fileSize: MAX_UPLOAD_BYTES } }))
  transcribe(
    @Req() request: Request,
    @UploadedFile() file: UploadedAudio | undefined,
    @Body() form: TranscriptionForm,
    @Res() res: Response,
  ): void {
    if (!hasCredentials(request)) return error(res, 401, 'Missing API key');
    if (!file || typeof form.model !== 'string') return error(res, 400, 'file and model are required');
    const injected = /\[\[fail:(\d{3})\]\]/.exec(form.prompt ?? '');
    if (injected) return error(res, Number(injected[1]), `Injected failure ${injected[1]}`);
    const duration = mockDurationSeconds(file.buffer);
    const { text, segments, words } = mockTranscription(duration, Number(form.temperature ?? 0));
    const language = form.language ?? 'en';
    const usage = { type: 'duration', seconds: Math.ceil(duration) };
    switch (form.response_format ?? 'json') {
      case 'text':
        res.type('text/plain').send(text);
        return;
      case 'srt':
        res.type('application/x-subrip').send(mockSubtitles(segments, 'srt'));
        return;
      case 'vtt':
        res.type('text/vtt').send(mockSubtitles(segments, 'vtt'));
        return;
      case 'verbose_json': {
        const granularities = form.timestamp_granularities ?? ['segment'];
        res.json({
          task: 'transcribe',
          language,
          duration,
          text,
          ...(granularities.includes('segment') ? { segments } : {}),
          ...(granularities.includes('word') ? { words } : {}),
          usage,
        });
        return;
      }
      case 'diarized_json': {
        const speakers = form.known_speaker_names?.length ? form.known_speaker_names : ['A', 'B'];
        const diarized = segments.map((segment, i) => ({
          type: 'transcript.text.segment',
          id: `seg_${i}`,
          start: segment.start,
          end: segment.end,
          text: segment.text,
          speaker: speakers[i % speakers.length],
        }));
        res.json({ task: 'transcribe', duration, text, segments: diarized, usage });
        return;
      }
      case 'json': {
        const logprobs = form.include?.includes('logprobs')
          ? words.map((w) => ({ token: w.word, logprob: -0.1, bytes: [...Buffer.from(w.word)] }))
          : undefined;
        res.json({ text, ...(logprobs ? { logprobs } : {}), usage });
        return;
      }
      default:
        return error(res, 400, `Unknown response_format ${form.response_format}`);
    }
  }
}

function error(res: Response, status: number, message: string): void {
  res.status(status).json({ error: { message, type: 'invalid_request_error', code: null, param: null } });
}
