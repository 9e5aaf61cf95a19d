import { DomainError, type TranscriptionParams } from '@gw/contracts';
import type { ModelCatalogueEntryDto } from '@gw/dto';
import { checkTranscriptionParams, transcriptionCapabilities } from './transcription-rules';

const entry = (id: string, parameters: ModelCatalogueEntryDto['parameters'] = {}) =>
  ({ id, parameters }) as ModelCatalogueEntryDto;
const classic = transcriptionCapabilities(entry('demo/whisper'));
const diarize = transcriptionCapabilities(entry('demo/transcribe-diarize'));

function refusal(
  params: TranscriptionParams,
  capabilities = classic,
  duration = 10,
): { param: string | null | undefined } | null {
  try {
    checkTranscriptionParams(params, 'm', capabilities, duration);
    return null;
  } catch (err) {
    expect(err).toBeInstanceOf(DomainError);
    expect((err as DomainError).code).toBe('invalid_request');
    return { param: (err as DomainError).param };
  }
}

describe('transcriptionCapabilities', () => {
  it('gives the classic model every format but diarized_json, and no streaming', () => {
    expect(classic).toEqual({
      formats: ['json', 'text', 'srt', 'verbose_json', 'vtt'],
      diarizing: false,
      stream: false,
    });
  });

  it('gives the diarizing model json, text and diarized_json', () => {
    expect(diarize).toEqual({ formats: ['json', 'text', 'diarized_json'], diarizing: true, stream: false });
  });

  it('follows the formats and streaming the catalogue declares', () => {
    const declared = transcriptionCapabilities(
      entry('x/fast', { response_format: { values: ['json', 'text', 'bogus'] }, stream: {} }),
    );
    expect(declared).toEqual({ formats: ['json', 'text'], diarizing: false, stream: true });
  });
});

describe('checkTranscriptionParams', () => {
  it.each<[string, TranscriptionParams, ReturnType<typeof transcriptionCapabilities>, number, string]>([
    ['streaming on the classic model', { stream: true }, classic, 10, 'stream'],
    [
      'diarized_json on the classic model',
      { response_format: 'diarized_json' },
      classic,
      10,
      'response_format',
    ],
    ['srt on the diarizing model', { response_format: 'srt' }, diarize, 10, 'response_format'],
    [
      'word timestamps without verbose_json',
      { timestamp_granularities: ['word'] },
      classic,
      10,
      'timestamp_granularities',
    ],
    ['logprobs with text', { include: ['logprobs'], response_format: 'text' }, classic, 10, 'include'],
    [
      'known speakers on the classic model',
      { known_speaker_names: ['Anna'] },
      classic,
      10,
      'known_speaker_names',
    ],
    [
      'references without a name each',
      {
        known_speaker_names: ['Anna'],
        known_speaker_references: ['data:audio/wav;base64,AA==', 'data:audio/wav;base64,AA=='],
      },
      diarize,
      10,
      'known_speaker_references',
    ],
    [
      'over 30 s on the diarizing model without chunking',
      { response_format: 'diarized_json' },
      diarize,
      30.5,
      'chunking_strategy',
    ],
  ])('refuses %s', (_label, params, capabilities, duration, param) => {
    expect(refusal(params, capabilities, duration)).toEqual({ param });
  });

  it.each<[string, TranscriptionParams, ReturnType<typeof transcriptionCapabilities>, number]>([
    ['defaults', {}, classic, 10],
    [
      'verbose_json with word and segment timestamps',
      { response_format: 'verbose_json', timestamp_granularities: ['word', 'segment'] },
      classic,
      10,
    ],
    ['logprobs with json', { include: ['logprobs'] }, classic, 10],
    ['diarization of 30 s without chunking', { response_format: 'diarized_json' }, diarize, 30],
    [
      'diarization of an hour with chunking and speakers',
      { response_format: 'diarized_json', chunking_strategy: 'auto', known_speaker_names: ['A', 'B'] },
      diarize,
      3600,
    ],
  ])('accepts %s', (_label, params, capabilities, duration) => {
    expect(refusal(params, capabilities, duration)).toBeNull();
  });
});
