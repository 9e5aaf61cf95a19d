import { IsBoolean, IsIn, IsInt, IsObject, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { rpc } from '../contract';
import { PaidRequestEnvelope } from '../inference/paid-request';
import { type Principal, PrincipalField } from '../principal';

/** A generation's status values, as the interface lists them. */
export const GENERATION_STATUSES = ['pending', 'processing', 'completed', 'failed', 'cancelled'] as const;
export type MediaGenerationStatus = (typeof GENERATION_STATUSES)[number];

/** The statuses a generation never leaves. */
export const FINAL_GENERATION_STATUSES = ['completed', 'failed', 'cancelled'] as const;

/** The follow-up operations of the interface; a model's catalogue entry lists which it takes. */
export const MEDIA_OPERATIONS = ['extend', 'upscale_1080p', 'upscale_4k'] as const;
export type MediaOperation = (typeof MEDIA_OPERATIONS)[number];

/**
 * Which public route asked for the generation: `media` (`POST /v1/media`), `images`
 * (`POST /v2/images/generations`), `speech` (`POST /v1/audio/speech`). History records every one
 * with apiType `media`; the surface only decides what the route answers.
 */
export const MEDIA_SURFACES = ['media', 'images', 'speech'] as const;
export type MediaSurface = (typeof MEDIA_SURFACES)[number];

/** The longest a single await may block; the gateway repeats it up to SYNC_WAIT_MS (no NATS request is held for minutes). */
export const MAX_AWAIT_MS = 20_000;

export class GetMediaGenerationRequest {
  @PrincipalField()
  principal!: Principal;

  @IsString()
  @MaxLength(200)
  id!: string;
}

/**
 * `POST /v1/media` and the image and speech routes: the gateway checks the envelope, the media
 * service checks `params` against the model's catalogue parameter descriptors (400 naming the
 * parameter), reserves the cost, stores the pending record and its job, and answers it at once.
 */
export class CreateMediaGenerationRequest extends PaidRequestEnvelope {
  @IsString()
  @MaxLength(200)
  model!: string;

  @IsObject()
  params!: Record<string, unknown>;

  /** Whether the client asked for `async: true` (history's responseMode `async`, else `sync`). */
  @IsBoolean()
  async!: boolean;

  @IsIn(MEDIA_SURFACES)
  surface!: MediaSurface;

  /** The images API's `user`: the end user the result files are kept for. */
  @IsOptional()
  @IsString()
  @MaxLength(128)
  externalUserId?: string;
}

/** Waits until the generation is final or `waitMs` has passed, then answers it as it stands. */
export class AwaitMediaGenerationRequest extends GetMediaGenerationRequest {
  @IsInt()
  @Min(0)
  @Max(MAX_AWAIT_MS)
  waitMs!: number;
}

export class CancelMediaGenerationRequest extends GetMediaGenerationRequest {}

/** `POST /v1/media/{id}/operations`: a NEW generation linked to `id`, which stays unchanged. */
export class RunMediaOperationRequest extends GetMediaGenerationRequest {
  @IsIn(MEDIA_OPERATIONS)
  operation!: MediaOperation;

  @IsObject()
  params!: Record<string, unknown>;

  @IsBoolean()
  async!: boolean;
}

export const IMAGE_RESPONSE_FORMATS = ['url', 'b64_json'] as const;
export type ImageResponseFormat = (typeof IMAGE_RESPONSE_FORMATS)[number];

/** A completed image generation in the images API's shape; `b64_json` reads the stored files (the reply crosses NATS by claim check). */
export class ImageResultRequest extends GetMediaGenerationRequest {
  @IsIn(IMAGE_RESPONSE_FORMATS)
  responseFormat!: ImageResponseFormat;
}

/** The files a completed generation produced, for a route that answers the bytes themselves (speech). */
export class GenerationFilesRequest extends GetMediaGenerationRequest {}

/** The interface's Usage object (media and image responses). */
export interface MediaUsage {
  input_units?: number;
  output_units?: number;
  duration_seconds?: number;
  input_tokens?: number;
  output_tokens?: number;
  total_tokens?: number;
  cost_rub?: number;
  cost?: number;
}

/** One stored result file as `data` shows it. */
export interface MediaResultFile {
  url: string;
  file_id: string;
  content_type: string;
  revised_prompt?: string;
}

/** The Generation record of the interface. */
export interface MediaGeneration {
  id: string;
  object: 'media.generation';
  status: MediaGenerationStatus;
  created: number;
  model: string;
  completed_at?: number;
  /** Images: an array of result files; video, audio and upscales: one result file (it has `url`). */
  data?: MediaResultFile[] | MediaResultFile;
  usage?: MediaUsage;
  error?: { code: string; message: string };
  content?: string;
  reasoning_summary?: string;
  warnings?: string[];
}

/** The interface's Image generation result. */
export interface ImageGenerationResult {
  created: number;
  data: Array<{ url?: string; b64_json?: string; revised_prompt?: string }>;
  usage?: MediaUsage;
}

/** A result file where the blob store keeps it: only the key crosses the bus. */
export interface GeneratedMediaFile {
  fileId: string;
  objectKey: string;
  contentType: string;
  size: number;
  url: string;
}

export const MediaContracts = {
  getGeneration: rpc<GetMediaGenerationRequest, MediaGeneration>(
    'media.v1.get-generation',
    GetMediaGenerationRequest,
  ),
  createGeneration: rpc<CreateMediaGenerationRequest, MediaGeneration>(
    'media.v1.create-generation',
    CreateMediaGenerationRequest,
  ),
  awaitGeneration: rpc<AwaitMediaGenerationRequest, MediaGeneration>(
    'media.v1.await-generation',
    AwaitMediaGenerationRequest,
  ),
  cancelGeneration: rpc<CancelMediaGenerationRequest, MediaGeneration>(
    'media.v1.cancel-generation',
    CancelMediaGenerationRequest,
  ),
  runOperation: rpc<RunMediaOperationRequest, MediaGeneration>(
    'media.v1.run-operation',
    RunMediaOperationRequest,
  ),
  imageResult: rpc<ImageResultRequest, ImageGenerationResult>('media.v1.image-result', ImageResultRequest),
  generationFiles: rpc<GenerationFilesRequest, { files: GeneratedMediaFile[] }>(
    'media.v1.generation-files',
    GenerationFilesRequest,
  ),
} as const;
