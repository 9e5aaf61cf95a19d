import { Body, Controller, Delete, Get, Param, Post, Query, Req, Res, UseInterceptors } from '@nestjs/common';
import { FileInterceptor, NoFilesInterceptor } from '@nestjs/platform-express';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { hasCredentials } from '../chat/upstream-credentials';
import { encodeMp4 } from './encoders/mp4';
import { answeredInjectedFailure, parseSize, promptColour, readMediaPrompt } from './media-prompt';
import { MockVideoJobs, videoJobState } from './mock-video-jobs.service';
import { sendOpenAiError } from './openai-error';
import {
  readSeconds,
  UPSCALE_SHORT_SIDE,
  type UpscaleResolution,
  upscaledSize,
  videoObject,
  videoReference,
} from './video-wire';

/** Fields arrive as strings in a multipart form (what OpenAI's SDK sends) and typed in JSON. */
interface VideoForm {
  model?: unknown;
  prompt?: unknown;
  seconds?: unknown;
  size?: unknown;
  video?: unknown;
  resolution?: unknown;
}

const DEFAULT_SIZE = '720x1280';
const DEFAULT_SECONDS = 4;
const MAX_REFERENCE_BYTES = 20 * 1024 * 1024;

/**
 * `Mock Alpha`'s OpenAI Videos API: create, retrieve, download (`variant=video`, an MP4 of the
 * prompt's colour), delete (finished jobs only, as OpenAI's), extensions (`POST /videos/extensions`
 * `{video: {id}, prompt, seconds}`: a new job of the stitched length), and upscales, which OpenAI
 * does not have and which follow the extensions' shape: `POST /videos/upscales`
 * `{video: {id}, resolution: 1080p | 4k}`, a new job of the same clip at that size.
 */
@ApiExcludeController()
@Controller('alpha/v1/videos')
export class MockVideosController {
  constructor(private readonly jobs: MockVideoJobs) {}

  @Post()
  @UseInterceptors(FileInterceptor('input_reference', { limits: { fileSize: MAX_REFERENCE_BYTES } }))
  create(@Req() request: Request, @Body() body: VideoForm, @Res() res: Response): void {
    if (!hasCredentials(request)) return sendOpenAiError(res, 401, 'Missing API key');
    const clip = readClip(body ?? {}, DEFAULT_SECONDS);
    if ('invalid' in clip) return sendInvalid(res, clip.invalid);
    const size = parseSize(typeof body.size === 'string' ? body.size : DEFAULT_SIZE);
    if (!size) return sendInvalid(res, ['size', 'size must be WIDTHxHEIGHT, even sides of 16 to 4096']);
    const prompt = readMediaPrompt(clip.prompt);
    if (answeredInjectedFailure(res, prompt.faults)) return;
    const model = typeof body.model === 'string' ? body.model : 'sora-2';
    const colour = promptColour(prompt.text);
    const job = this.jobs.create(
      { model, prompt: clip.prompt, ...size, seconds: clip.seconds, colour, fails: prompt.jobFails },
      prompt.faults.delayMs,
    );
    res.status(200).json(videoObject(job, Date.now()));
  }

  @Post('extensions')
  @UseInterceptors(NoFilesInterceptor())
  extend(@Req() request: Request, @Body() body: VideoForm, @Res() res: Response): void {
    if (!hasCredentials(request)) return sendOpenAiError(res, 401, 'Missing API key');
    const source = this.completedSource(body?.video, res);
    if (!source) return;
    const clip = readClip(body, null);
    if ('invalid' in clip) return sendInvalid(res, clip.invalid);
    const prompt = readMediaPrompt(clip.prompt);
    if (answeredInjectedFailure(res, prompt.faults)) return;
    const job = this.jobs.create(
      { ...source, prompt: clip.prompt, seconds: source.seconds + clip.seconds, fails: prompt.jobFails },
      prompt.faults.delayMs,
    );
    res.status(200).json(videoObject(job, Date.now()));
  }

  @Post('upscales')
  @UseInterceptors(NoFilesInterceptor())
  upscale(@Req() request: Request, @Body() body: VideoForm, @Res() res: Response): void {
    if (!hasCredentials(request)) return sendOpenAiError(res, 401, 'Missing API key');
    const source = this.completedSource(body?.video, res);
    if (!source) return;
    const resolution = body.resolution;
    if (typeof resolution !== 'string' || !Object.hasOwn(UPSCALE_SHORT_SIDE, resolution)) {
      return sendInvalid(res, ['resolution', 'resolution must be 1080p or 4k']);
    }
    const size = upscaledSize(source.width, source.height, resolution as UpscaleResolution);
    const job = this.jobs.create({ ...source, ...size, fails: false }, 0);
    res.status(200).json(videoObject(job, Date.now()));
  }

  @Get(':id')
  retrieve(@Req() request: Request, @Param('id') id: string, @Res() res: Response): void {
    if (!hasCredentials(request)) return sendOpenAiError(res, 401, 'Missing API key');
    const job = this.jobs.find(id);
    if (!job) return notFound(res, id);
    res.status(200).json(videoObject(job, Date.now()));
  }

  @Get(':id/content')
  content(
    @Req() request: Request,
    @Param('id') id: string,
    @Query('variant') variant: unknown,
    @Res() res: Response,
  ): void {
    if (!hasCredentials(request)) return sendOpenAiError(res, 401, 'Missing API key');
    if (variant !== undefined && variant !== 'video') {
      return sendInvalid(res, ['variant', 'The mock serves variant=video only']);
    }
    const job = this.jobs.find(id);
    if (!job) return notFound(res, id);
    if (videoJobState(job, Date.now()).status !== 'completed') {
      return sendOpenAiError(
        res,
        404,
        'Video is not ready yet, use GET /v1/videos/{video_id} to check status.',
      );
    }
    res
      .status(200)
      .type('video/mp4')
      .send(encodeMp4(job.width, job.height, job.seconds, job.colour));
  }

  @Delete(':id')
  remove(@Req() request: Request, @Param('id') id: string, @Res() res: Response): void {
    if (!hasCredentials(request)) return sendOpenAiError(res, 401, 'Missing API key');
    const job = this.jobs.find(id);
    if (!job) return notFound(res, id);
    const { status } = videoJobState(job, Date.now());
    if (status === 'queued' || status === 'in_progress') {
      return sendOpenAiError(res, 400, 'Only a completed or failed video can be deleted');
    }
    this.jobs.delete(id);
    res.status(200).json({ id, object: 'video.deleted', deleted: true });
  }

  /** The completed job a follow-up names; otherwise answers 400 or 404 and gives null. */
  private completedSource(reference: unknown, res: Response) {
    const id = videoReference(reference);
    if (id === null) {
      sendInvalid(res, ['video', 'video {id} is required']);
      return null;
    }
    const source = this.jobs.find(id);
    if (!source) {
      notFound(res, id);
      return null;
    }
    if (videoJobState(source, Date.now()).status !== 'completed') {
      sendInvalid(res, ['video', `Video ${id} is not completed`]);
      return null;
    }
    const { model, prompt, width, height, seconds, colour } = source;
    return { model, prompt, width, height, seconds, colour };
  }
}

/** A 400's parameter and message. */
type Invalid = [param: string, message: string];

/** The prompt and seconds of a new clip or an extension (whose seconds have no default). */
function readClip(
  body: VideoForm,
  defaultSeconds: number | null,
): { prompt: string; seconds: number } | { invalid: Invalid } {
  if (typeof body.prompt !== 'string' || body.prompt.trim() === '') {
    return { invalid: ['prompt', 'prompt is required'] };
  }
  const seconds = readSeconds(body.seconds ?? defaultSeconds);
  if (seconds === null) return { invalid: ['seconds', 'seconds must be a whole number from 1 to 20'] };
  return { prompt: body.prompt, seconds };
}

function sendInvalid(res: Response, [param, message]: Invalid): void {
  sendOpenAiError(res, 400, message, 'invalid_request_error', param);
}

function notFound(res: Response, id: string): void {
  sendOpenAiError(res, 404, `Video with id '${id}' not found.`, 'invalid_request_error', 'video_id');
}
