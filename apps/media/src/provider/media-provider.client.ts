import { type OnApplicationShutdown } from '@nestjs/common';
import type { ProviderRoute } from '@gw/catalogue';
import {
  toUpstreamFailure,
  tracedModelCall,
  UpstreamFailure,
  upstreamJson,
  upstreamStatusFailure,
} from '@gw/paid-generation';
import type { Readable } from 'node:stream';
import { Agent, type Dispatcher, request } from 'undici';

/** One image of a provider's answer: its bytes, and the prompt as the provider rewrote it. */
export interface ProviderImage {
  bytes: Buffer;
  revisedPrompt?: string;
}

/** The tokens an image answer reports (the GPT image models do; others report none). */
export interface ImageTokens {
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
}

export interface ProviderImages {
  images: ProviderImage[];
  tokens: ImageTokens | null;
}

/** A provider's video job as its status call answers it. */
export interface ProviderVideoJob {
  id: string;
  status: 'queued' | 'in_progress' | 'completed' | 'failed';
  error: { code: string | null; message: string | null } | null;
}

/** A download: the bytes as they arrive and what they are. */
export interface ProviderDownload {
  body: Readable;
  contentType: string;
}

/** Connection failures that happen before a request is written: the provider never saw it. */
const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

function notSent(err: unknown): boolean {
  const code = (err as { code?: string })?.code ?? (err as { cause?: { code?: string } })?.cause?.code;
  return code !== undefined && NOT_SENT_CODES.has(code);
}

/** The provider could not be reached at all: the call certainly did not reach it, so repeating it doubles nothing. */
export class ProviderUnreachable extends UpstreamFailure {
  constructor(reason: string) {
    super('connect', `Upstream not reachable: ${reason}`);
  }
}

/**
 * The OpenAI media wire of a provider: images and speech answer in one call, videos are jobs
 * (create, extend, upscale) asked about until they end and then downloaded. Every failure is an
 * UpstreamFailure, whose kind tells whether the call may have reached the provider (`connect`: it
 * certainly did not).
 */
export class MediaProviderClient implements OnApplicationShutdown {
  private readonly agent: Agent;
  private closing: Promise<void> | null = null;

  constructor(private readonly timeoutMs: number) {
    this.agent = new Agent({ keepAliveTimeout: 30_000, connections: 64 });
  }

  /** Each model call (images, speech, a video job's creation) is a GenAI `generate_content` span when tracing is on. */
  generateImages(
    route: ProviderRoute,
    params: Record<string, unknown>,
    format: string,
  ): Promise<ProviderImages> {
    return tracedModelCall('generate_content', route, { output_type: 'image' }, () =>
      this.images(route, params, format),
    );
  }

  private async images(
    route: ProviderRoute,
    params: Record<string, unknown>,
    format: string,
  ): Promise<ProviderImages> {
    const { prompt, n, size, quality, style, background, output_compression } = params;
    const body = {
      model: route.upstreamModel,
      prompt,
      n,
      ...(size !== undefined ? { size } : {}),
      ...(quality !== undefined ? { quality } : {}),
      ...(style !== undefined ? { style } : {}),
      ...(params['output_format'] !== undefined ? { output_format: format } : {}),
      ...(background !== undefined ? { background } : {}),
      ...(output_compression !== undefined ? { output_compression } : {}),
      response_format: 'b64_json',
    };
    const answer = await upstreamJson<{
      data?: Array<{ b64_json?: unknown; revised_prompt?: unknown }>;
      usage?: Partial<Record<keyof ImageTokens, unknown>>;
    }>(await this.send(route, 'POST', '/images/generations', body));
    const images = answer.data ?? [];
    if (images.length === 0 || images.some((image) => typeof image.b64_json !== 'string')) {
      throw new UpstreamFailure('protocol', 'The provider answered no image');
    }
    const { input_tokens, output_tokens } = answer.usage ?? {};
    return {
      images: images.map((image) => ({
        bytes: Buffer.from(image.b64_json as string, 'base64'),
        ...(typeof image.revised_prompt === 'string' ? { revisedPrompt: image.revised_prompt } : {}),
      })),
      tokens:
        typeof input_tokens === 'number' && typeof output_tokens === 'number'
          ? { input_tokens, output_tokens, total_tokens: input_tokens + output_tokens }
          : null,
    };
  }

  /** Speech as the provider answers it: the audio bytes, streamed (the span ends with the answer's headers). */
  speak(route: ProviderRoute, params: Record<string, unknown>, format: string): Promise<ProviderDownload> {
    return tracedModelCall('generate_content', route, { output_type: 'speech' }, () =>
      this.speech(route, params, format),
    );
  }

  private async speech(
    route: ProviderRoute,
    params: Record<string, unknown>,
    format: string,
  ): Promise<ProviderDownload> {
    const body = {
      model: route.upstreamModel,
      input: params['prompt'],
      voice: params['voice'] ?? 'alloy',
      ...(params['speed'] !== undefined ? { speed: params['speed'] } : {}),
      response_format: format,
    };
    return this.download(await this.send(route, 'POST', '/audio/speech', body), 'audio/mpeg');
  }

  createVideo(
    route: ProviderRoute,
    prompt: string,
    seconds: number,
    size: string,
  ): Promise<ProviderVideoJob> {
    return tracedModelCall('generate_content', route, {}, () =>
      this.videoJob(route, 'POST', '/videos', {
        model: route.upstreamModel,
        prompt,
        seconds: String(seconds),
        size,
      }),
    );
  }

  extendVideo(
    route: ProviderRoute,
    videoId: string,
    prompt: string,
    seconds: number,
  ): Promise<ProviderVideoJob> {
    return tracedModelCall('generate_content', route, {}, () =>
      this.videoJob(route, 'POST', '/videos/extensions', {
        video: { id: videoId },
        prompt,
        seconds: String(seconds),
      }),
    );
  }

  upscaleVideo(route: ProviderRoute, videoId: string, resolution: '1080p' | '4k'): Promise<ProviderVideoJob> {
    return tracedModelCall('generate_content', route, {}, () =>
      this.videoJob(route, 'POST', '/videos/upscales', { video: { id: videoId }, resolution }),
    );
  }

  retrieveVideo(route: ProviderRoute, videoId: string): Promise<ProviderVideoJob> {
    return this.videoJob(route, 'GET', `/videos/${encodeURIComponent(videoId)}`);
  }

  async downloadVideo(route: ProviderRoute, videoId: string): Promise<ProviderDownload> {
    const path = `/videos/${encodeURIComponent(videoId)}/content?variant=video`;
    return this.download(await this.send(route, 'GET', path), 'video/mp4');
  }

  onApplicationShutdown(): Promise<void> {
    this.closing ??= this.agent.close();
    return this.closing;
  }

  private async videoJob(
    route: ProviderRoute,
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
  ): Promise<ProviderVideoJob> {
    const job = await upstreamJson<Record<string, unknown>>(await this.send(route, method, path, body));
    const status = job['status'];
    if (
      typeof job['id'] !== 'string' ||
      (status !== 'queued' && status !== 'in_progress' && status !== 'completed' && status !== 'failed')
    ) {
      throw new UpstreamFailure('protocol', 'The provider answered no video job');
    }
    const error = job['error'] as { code?: unknown; message?: unknown } | null | undefined;
    return {
      id: job['id'],
      status,
      error: error
        ? {
            code: typeof error.code === 'string' ? error.code : null,
            message: typeof error.message === 'string' ? error.message : null,
          }
        : null,
    };
  }

  private download(response: Dispatcher.ResponseData, fallbackType: string): ProviderDownload {
    const header = response.headers['content-type'];
    const contentType = (Array.isArray(header) ? header[0] : header)?.split(';')[0].trim() || fallbackType;
    return { body: response.body, contentType };
  }

  private async send(
    route: ProviderRoute,
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
  ): Promise<Dispatcher.ResponseData> {
    const headers: Record<string, string> = route.apiKey ? { authorization: `Bearer ${route.apiKey}` } : {};
    let response: Dispatcher.ResponseData;
    try {
      response = await request(`${route.baseUrl}${path}`, {
        method,
        headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
        dispatcher: this.agent,
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
      });
    } catch (err) {
      throw notSent(err) ? new ProviderUnreachable((err as Error).message) : toUpstreamFailure(err);
    }
    if (response.statusCode < 200 || response.statusCode >= 300) throw await upstreamStatusFailure(response);
    return response;
  }
}
