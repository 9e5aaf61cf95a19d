import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { DomainError, Principal, TranscriptionRequest } from '@gw/contracts';
import { MAX_AUDIO_BYTES, TranscriptionParamsDto } from '@gw/dto';
import { validationErrorToDomainError } from '@gw/platform';
import { API_GATEWAY_ENV, ApiGatewayEnv } from '../api-gateway.env';
import { parseAllowHosts } from './address-policy';
import {
  type AudioForm,
  AudioStagingService,
  audioTooLarge,
  type StagedAudio,
} from './audio-staging.service';
import { AudioUrlFetcher } from './audio-url-fetcher';
import { findJsonHazard } from '../http/json-hazards';
import { formFieldsToParams } from './form-fields';

const DATA_URL = /^data:([^;,]*)(?:;[^;,]*)*;base64,/;

/**
 * Turns either request form into one TranscriptionRequest: fields typed and validated (each error
 * naming its parameter), audio taken from the upload, a data URL or a fetched URL, limited to 25 MB
 * and accepted only when its content is one of the interface's formats.
 */
@Injectable()
export class TranscriptionInputService implements OnModuleDestroy {
  private readonly fetcher: AudioUrlFetcher;

  constructor(
    @Inject(API_GATEWAY_ENV) env: ApiGatewayEnv,
    private readonly staging: AudioStagingService,
  ) {
    this.fetcher = new AudioUrlFetcher({
      allowHosts: parseAllowHosts(env.TRANSCRIPTION_URL_ALLOW_HOSTS),
      timeoutMs: env.TRANSCRIPTION_URL_TIMEOUT_MS,
    });
  }

  /**
   * `upload` is the multipart form's staged file; without one (a JSON body, or a form whose `file` is
   * a text field) the audio is read from `file` here and staged last, once everything else is checked.
   */
  async build(
    principal: Principal,
    fields: Record<string, unknown>,
    upload: AudioForm['audio'],
    generationId: string,
  ): Promise<TranscriptionRequest> {
    const { file, ...rest } = fields ?? {};
    // Multipart fields skip the JSON body checks of the edge, so the same hazards are refused here;
    // `file` is left out: as an upload it is not a field, and as JSON the edge checked its megabytes already.
    const hazard = findJsonHazard(rest);
    if (hazard) throw new DomainError('invalid_request', hazard.message, hazard.path || null);
    const params = plainToInstance(TranscriptionParamsDto, formFieldsToParams(rest));
    const errors = validateSync(params, { whitelist: true, forbidNonWhitelisted: true });
    if (errors.length > 0) throw validationErrorToDomainError(errors);
    const audio = upload ?? (await this.stagedFrom(file));
    if (audio === 'not-audio')
      throw new DomainError(
        'invalid_request',
        'The file is not audio in a supported format (MP3, WAV, M4A, FLAC, OGG, WebM)',
        'file',
      );
    return { principal, generationId, params: { ...params }, audio };
  }

  onModuleDestroy(): Promise<void> {
    return this.fetcher.close();
  }

  /** A data URL or an http(s) URL's audio, staged; `file` is checked before anything is read. */
  private async stagedFrom(file: unknown): Promise<StagedAudio> {
    const { bytes, filename } = await this.audioOf(file);
    return this.staging.stageBytes(bytes, filename);
  }

  private async audioOf(file: unknown): Promise<{ bytes: Buffer; filename: string }> {
    if (file === undefined || file === null || file === '')
      throw new DomainError(
        'invalid_request',
        'file is required: an upload, a base64 data URL or an http(s) URL',
        'file',
      );
    if (typeof file !== 'string')
      throw new DomainError(
        'invalid_request',
        'file must be a string: a base64 data URL or an http(s) URL',
        'file',
      );
    const dataUrl = DATA_URL.exec(file);
    if (dataUrl) return { bytes: decodeBase64(file.slice(dataUrl[0].length)), filename: 'audio' };
    if (file.startsWith('data:'))
      throw new DomainError('invalid_request', 'A data URL file must be base64-encoded', 'file');
    return this.fetcher.fetch(file);
  }
}

/** Decodes strictly (Buffer.from ignores junk) and refuses more than 25 MB before allocating it. */
export function decodeBase64(text: string): Buffer {
  const payload = text.replace(/\s+/g, '');
  if (
    Math.floor((payload.length * 3) / 4) - (payload.endsWith('==') ? 2 : payload.endsWith('=') ? 1 : 0) >
    MAX_AUDIO_BYTES
  ) {
    throw audioTooLarge();
  }
  if (payload.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(payload))
    throw new DomainError('invalid_request', 'The data URL is not valid base64', 'file');
  return Buffer.from(payload, 'base64');
}
