import { renderSrt, renderVtt, timestamp } from './subtitles';

const segments = [
  { start: 0, end: 2.5, text: ' Hello there.' },
  { start: 2.5, end: 3661.0015, text: 'General Kenobi.' },
];

describe('timestamp', () => {
  it.each([
    [0, ',', '00:00:00,000'],
    [1.2345, '.', '00:00:01.235'],
    [59.9996, ',', '00:01:00,000'],
    [3661.5, '.', '01:01:01.500'],
    [-1, ',', '00:00:00,000'],
  ] as const)('renders %p s with %p', (seconds, separator, expected) => {
    expect(timestamp(seconds, separator)).toBe(expected);
  });
});

describe('renderSrt', () => {
  it('numbers the cues from 1 with commas before milliseconds', () => {
    expect(renderSrt(segments)).toBe(
      '1\n00:00:00,000 --> 00:00:02,500\nHello there.\n\n2\n00:00:02,500 --> 01:01:01,002\nGeneral Kenobi.\n',
    );
  });

  it('is empty without segments', () => {
    expect(renderSrt([])).toBe('');
  });
});

describe('renderVtt', () => {
  it('starts with the WEBVTT header and uses dots before milliseconds', () => {
    expect(renderVtt(segments)).toBe(
      'WEBVTT\n\n00:00:00.000 --> 00:00:02.500\nHello there.\n\n00:00:02.500 --> 01:01:01.002\nGeneral Kenobi.\n',
    );
  });

  it('is the header alone without segments', () => {
    expect(renderVtt([])).toBe('WEBVTT\n');
  });
});
