import {
  DomainError,
  TRANSCRIPTION_RESPONSE_FORMATS,
  type TranscriptionParams,
  type TranscriptionResponseFormat,
} from '@gw/contracts';
import type { ModelCatalogueEntryDto } from '@gw/dto';

/** Longer audio needs `chunking_strategy` on the diarizing model (interface). */
export const DIARIZE_CHUNKING_THRESHOLD_SECONDS = 30;

export interface TranscriptionCapabilities {
  formats: readonly TranscriptionResponseFormat[];
  diarizing: boolean;
  stream: boolean;
}

const CLASSIC_FORMATS: readonly TranscriptionResponseFormat[] = [
  'json',
  'text',
  'srt',
  'verbose_json',
  'vtt',
];
const DIARIZING_FORMATS: readonly TranscriptionResponseFormat[] = ['json', 'text', 'diarized_json'];

/**
 * What a transcription model accepts. The catalogue's parameter descriptors decide where they are
 * declared (`response_format.values`, `stream`); otherwise a model is diarizing when its id says so,
 * and streaming is refused, as the classic model must refuse it.
 */
export function transcriptionCapabilities(entry: ModelCatalogueEntryDto): TranscriptionCapabilities {
  const declared = entry.parameters['response_format']?.values?.filter(
    (value): value is TranscriptionResponseFormat =>
      (TRANSCRIPTION_RESPONSE_FORMATS as readonly string[]).includes(value),
  );
  const diarizing = declared ? declared.includes('diarized_json') : /diariz/i.test(entry.id);
  return {
    formats: declared ?? (diarizing ? DIARIZING_FORMATS : CLASSIC_FORMATS),
    diarizing,
    stream: 'stream' in entry.parameters,
  };
}

/** The interface's cross-field rules, each refusal naming its parameter; `durationSeconds` is the best estimate of the audio's length. */
export function checkTranscriptionParams(
  params: TranscriptionParams,
  model: string,
  capabilities: TranscriptionCapabilities,
  durationSeconds: number,
): void {
  const format = params.response_format ?? 'json';
  const refuse = (param: string, message: string) => {
    throw new DomainError('invalid_request', message, param);
  };
  if (params.stream === true && !capabilities.stream)
    refuse('stream', `The model ${model} does not support streaming`);
  if (!capabilities.formats.includes(format))
    refuse(
      'response_format',
      `The model ${model} does not support response_format ${format}; it supports ${capabilities.formats.join(', ')}`,
    );
  if (params.timestamp_granularities?.length && format !== 'verbose_json')
    refuse(
      'timestamp_granularities',
      'timestamp_granularities applies only with response_format verbose_json',
    );
  if (params.include?.length && format !== 'json')
    refuse('include', 'include logprobs applies only with response_format json');
  const names = params.known_speaker_names ?? [];
  const references = params.known_speaker_references ?? [];
  if ((names.length > 0 || references.length > 0) && !capabilities.diarizing)
    refuse('known_speaker_names', `The model ${model} does not mark speakers`);
  if (references.length > 0 && references.length !== names.length)
    refuse(
      'known_speaker_references',
      'known_speaker_references must give one reference per known_speaker_names entry',
    );
  if (
    capabilities.diarizing &&
    params.chunking_strategy === undefined &&
    durationSeconds > DIARIZE_CHUNKING_THRESHOLD_SECONDS
  ) {
    refuse(
      'chunking_strategy',
      `chunking_strategy auto is required for ${model} when the audio is longer than ${DIARIZE_CHUNKING_THRESHOLD_SECONDS} seconds`,
    );
  }
}
