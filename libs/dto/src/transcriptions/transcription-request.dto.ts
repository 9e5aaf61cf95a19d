import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsNumber,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateBy,
} from 'class-validator';
import {
  AUDIO_FORMATS,
  AudioFormat,
  TRANSCRIPTION_RESPONSE_FORMATS,
  TranscriptionAudio,
  TranscriptionParams,
  TranscriptionRequest,
  TranscriptionResponseFormat,
} from '@gw/contracts';
import { NestedObject } from '../common/nested-object';
import { MAX_AUDIO_BYTES } from './audio-signature';

/** The interface's limit on known speakers. */
export const MAX_KNOWN_SPEAKERS = 4;

const languageNames = new Intl.DisplayNames(['en'], { type: 'language', fallback: 'none' });

/** A two-letter lowercase code that names a language: BCP 47's two-letter subtags are exactly ISO-639-1. */
export function isIso6391(value: unknown): boolean {
  return typeof value === 'string' && /^[a-z]{2}$/.test(value) && languageNames.of(value) !== undefined;
}

function IsIso6391() {
  return ValidateBy({
    name: 'isIso6391',
    validator: { validate: isIso6391, defaultMessage: () => 'language must be an ISO-639-1 code such as en' },
  });
}

/** Every field of POST /v1/audio/transcriptions except `file`; shared by the JSON and the multipart forms. */
export class TranscriptionParamsDto implements TranscriptionParams {
  @ApiPropertyOptional({ description: 'Defaults to the classic speech model', example: 'demo/whisper' })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  model?: string;

  @ApiPropertyOptional({ description: 'ISO-639-1 code', example: 'en' })
  @IsOptional()
  @IsIso6391()
  language?: string;

  @ApiPropertyOptional({ description: 'Context hint' })
  @IsOptional()
  @IsString()
  prompt?: string;

  @ApiPropertyOptional({ enum: TRANSCRIPTION_RESPONSE_FORMATS, default: 'json' })
  @IsOptional()
  @IsIn(TRANSCRIPTION_RESPONSE_FORMATS)
  response_format?: TranscriptionResponseFormat;

  @ApiPropertyOptional({ minimum: 0, maximum: 1, default: 0 })
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(1)
  temperature?: number;

  @ApiPropertyOptional({ enum: ['word', 'segment'], isArray: true, description: 'Only with verbose_json' })
  @IsOptional()
  @IsArray()
  @ArrayUnique()
  @IsIn(['word', 'segment'], { each: true })
  timestamp_granularities?: Array<'word' | 'segment'>;

  @ApiPropertyOptional({ description: 'End-user id' })
  @IsOptional()
  @IsString()
  @MaxLength(256)
  user?: string;

  @ApiPropertyOptional({
    enum: ['auto'],
    description: 'Required for the diarizing model when the audio is longer than 30 s',
  })
  @IsOptional()
  @IsIn(['auto'])
  chunking_strategy?: 'auto';

  @ApiPropertyOptional({ enum: ['logprobs'], isArray: true })
  @IsOptional()
  @IsArray()
  @ArrayUnique()
  @IsIn(['logprobs'], { each: true })
  include?: Array<'logprobs'>;

  @ApiPropertyOptional({ type: [String], maxItems: MAX_KNOWN_SPEAKERS, description: 'For diarized_json' })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_KNOWN_SPEAKERS)
  @IsString({ each: true })
  @IsNotEmpty({ each: true })
  @MaxLength(100, { each: true })
  known_speaker_names?: string[];

  @ApiPropertyOptional({
    type: [String],
    maxItems: MAX_KNOWN_SPEAKERS,
    description: 'Audio examples of the speakers as data URLs',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_KNOWN_SPEAKERS)
  @Matches(/^data:audio\/[\w.+-]+;base64,[A-Za-z0-9+/]+={0,2}$/, {
    each: true,
    message: 'known_speaker_references must be audio data URLs',
  })
  known_speaker_references?: string[];

  @ApiPropertyOptional({ description: 'Not supported by the classic model' })
  @IsOptional()
  @IsBoolean()
  stream?: boolean;
}

/** The JSON form: `file` is a base64 data URL or an http(s) URL. */
export class TranscriptionJsonRequestDto extends TranscriptionParamsDto {
  @ApiProperty({
    description:
      'Audio as a base64 data URL or an http(s) URL. Formats: MP3, WAV, M4A, FLAC, OGG, WebM; at most 25 MB',
  })
  @IsString()
  @IsNotEmpty()
  file!: string;
}

export class TranscriptionAudioDto implements TranscriptionAudio {
  @IsString()
  @Matches(/^transient\/[0-9a-f-]{36}$/, { message: 'key must name a transient object' })
  key!: string;

  @IsInt()
  @Min(1)
  @Max(MAX_AUDIO_BYTES)
  size!: number;

  @IsString()
  @MaxLength(255)
  filename!: string;

  @IsIn(AUDIO_FORMATS)
  format!: AudioFormat;
}

/**
 * The contract's transcription message with its audio and params checked by the public API's rules,
 * as the service validates it.
 */
export class TranscriptionRpcMessageDto extends TranscriptionRequest {
  @NestedObject(() => TranscriptionAudioDto)
  override audio!: TranscriptionAudioDto;

  @NestedObject(() => TranscriptionParamsDto)
  override params!: TranscriptionParamsDto;
}
