import { audioRefusal, webmFile } from '../../test/audio-fixtures';
import { webmLength } from './webm-length';

describe('webmLength', () => {
  it.each<[string, Parameters<typeof webmFile>[0], number | null]>([
    [
      'the latest block, in milliseconds by default',
      {
        clusters: [
          { time: 0, blocks: [0, 20, 40] },
          { time: 30_000, blocks: [0, 9_980] },
        ],
        blockBytes: 100,
      },
      39.98,
    ],
    [
      'the same in a live recording (segment and clusters of unknown size)',
      {
        clusters: [
          { time: 0, blocks: [0, 20] },
          { time: 30_000, blocks: [0, 9_980] },
        ],
        blockBytes: 100,
        live: true,
      },
      39.98,
    ],
    [
      'blocks inside block groups',
      { clusters: [{ time: 1_000, blocks: [0, 500] }], blockBytes: 10, grouped: true },
      1.5,
    ],
    [
      'blocks out of order by their latest',
      { clusters: [{ time: 5_000, blocks: [700, -200, 100] }], blockBytes: 10 },
      5.7,
    ],
    [
      'a timestamp scale of microseconds',
      { clusters: [{ time: 2_000_000, blocks: [0] }], timecodeScale: 1_000, blockBytes: 10 },
      2,
    ],
    ['nothing without a block', { clusters: [], blockBytes: 0 }, null],
  ])('states %s', (_label, fields, seconds) => {
    expect(webmLength(webmFile(fields))).toEqual(
      seconds === null ? null : { seconds: expect.closeTo(seconds, 9), exact: false },
    );
  });

  it('reads what precedes an element cut short', () => {
    const file = webmFile({
      clusters: [
        { time: 0, blocks: [0, 1_000] },
        { time: 2_000, blocks: [0] },
      ],
      blockBytes: 100,
    });
    expect(webmLength(file.subarray(0, file.length - 50))?.seconds).toBeCloseTo(1, 9);
  });

  it('refuses a timestamp scale of 0 on file', () => {
    expect(
      audioRefusal(() =>
        webmLength(webmFile({ clusters: [{ time: 0, blocks: [0] }], timecodeScale: 0, blockBytes: 10 })),
      ),
    ).toEqual({
      code: 'invalid_request',
      param: 'file',
      message: 'The WebM file states a timestamp scale of 0',
    });
  });
});
