import { formFieldsToParams } from './form-fields';

describe('formFieldsToParams', () => {
  it('folds indexed names into arrays in index order', () => {
    expect(
      formFieldsToParams({
        'timestamp_granularities[1]': 'segment',
        'timestamp_granularities[0]': 'word',
        model: 'demo/whisper',
      }),
    ).toEqual({
      model: 'demo/whisper',
      timestamp_granularities: ['word', 'segment'],
    });
  });

  it('takes empty brackets and repeated names as they come', () => {
    expect(formFieldsToParams({ 'include[]': 'logprobs', known_speaker_names: ['Anna', 'Boris'] })).toEqual({
      include: ['logprobs'],
      known_speaker_names: ['Anna', 'Boris'],
    });
  });

  it('reads arrays the parser already nested, sparse or keyed by index', () => {
    expect(
      formFieldsToParams({
        // eslint-disable-next-line no-sparse-arrays
        known_speaker_names: [, 'Boris'],
        timestamp_granularities: { '1': 'segment', '0': 'word' },
      }),
    ).toEqual({
      known_speaker_names: ['Boris'],
      timestamp_granularities: ['word', 'segment'],
    });
  });

  it('makes a single value of an array field a one-item array', () => {
    expect(formFieldsToParams({ timestamp_granularities: 'word' })).toEqual({
      timestamp_granularities: ['word'],
    });
  });

  it('types temperature and stream, and leaves other text for validation to refuse', () => {
    expect(formFieldsToParams({ temperature: '0.2', stream: 'false' })).toEqual({
      temperature: 0.2,
      stream: false,
    });
    expect(formFieldsToParams({ temperature: 'warm', stream: 'yes' })).toEqual({
      temperature: 'warm',
      stream: 'yes',
    });
  });

  it('passes JSON values through', () => {
    expect(formFieldsToParams({ temperature: 1, stream: true, include: ['logprobs'] })).toEqual({
      temperature: 1,
      stream: true,
      include: ['logprobs'],
    });
  });
});
