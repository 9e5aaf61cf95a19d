import { IsObject } from 'class-validator';
import { rpc } from '../contract';
import { PaidRequestEnvelope } from './paid-request';

export const TRANSCRIPTION_RESPONSE_FORMATS = [
  'json',
  'text',
  'srt',
  'verbose_json',
  'vtt',
  'diarized_json',
] as const;
export type TranscriptionResponseFormat = (typeof TRANSCRIPTION_RESPONSE_FORMATS)[number];

export const AUDIO_FORMATS = ['mp3', 'wav', 'm4a', 'flac', 'ogg', 'webm'] as const;
export type AudioFormat = (typeof AUDIO_FORMATS)[number];

/** The interface's request fields other than `file`, after the gateway turned form fields into typed values. */
export interface TranscriptionParams {
  model?: string;
  language?: string;
  prompt?: string;
  response_format?: TranscriptionResponseFormat;
  temperature?: number;
  timestamp_granularities?: Array<'word' | 'segment'>;
  user?: string;
  chunking_strategy?: 'auto';
  include?: Array<'logprobs'>;
  known_speaker_names?: string[];
  known_speaker_references?: string[];
  stream?: boolean;
}

/**
 * The uploaded audio, already checked by content at the gateway, which staged its bytes as a
 * transient blob-store object: only the reference crosses the bus (docs/decisions.md, claim checks).
 */
export interface TranscriptionAudio {
  /** The transient object's key; the gateway deletes it when the call ends. */
  key: string;
  size: number;
  filename: string;
  format: AudioFormat;
}

/** Audio and params are the public API's: the inference service validates them with the transcription DTOs. */
export class TranscriptionRequest extends PaidRequestEnvelope {
  @IsObject()
  audio!: TranscriptionAudio;

  @IsObject()
  params!: TranscriptionParams;
}

export interface TranscriptionSegment {
  id: number;
  seek?: number;
  start: number;
  end: number;
  text: string;
  tokens?: number[];
  temperature?: number;
  avg_logprob?: number;
  compression_ratio?: number;
  no_speech_prob?: number;
  /** diarized_json only. */
  speaker?: string;
}

export interface TranscriptionWord {
  word: string;
  start: number;
  end: number;
}

export interface TranscriptionUsage {
  durationSeconds: number;
  /** Roubles rounded to 8 places; `cost_rub` is the same number. */
  cost: number;
  cost_rub: number;
}

/** The interface's "Transcription result". */
export interface TranscriptionResult {
  text: string;
  language?: string;
  duration?: number;
  segments?: TranscriptionSegment[];
  words?: TranscriptionWord[];
  logprobs?: unknown[];
  model: string;
  usage: TranscriptionUsage;
}

/** What the gateway writes: a Transcription result as JSON, or the rendered text/srt/vtt body. */
export type TranscriptionReply =
  | { id: string; contentType: 'application/json'; result: TranscriptionResult }
  | { id: string; contentType: 'text/plain' | 'application/x-subrip' | 'text/vtt'; body: string };

export const TranscriptionContracts = {
  transcribe: rpc<TranscriptionRequest, TranscriptionReply>('inference.v1.transcribe', TranscriptionRequest),
} as const;
