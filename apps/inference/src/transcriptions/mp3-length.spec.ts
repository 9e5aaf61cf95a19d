import { audioRefusal, id3Tag, mp3Frames } from '../../test/audio-fixtures';
import { mp3Length, mpegFrameAt } from './mp3-length';

describe('mpegFrameAt', () => {
  it.each<[string, number[], number, number]>([
    ['MPEG-1 layer III, 128 kbit/s, 44.1 kHz', [0xff, 0xfb, 0x90, 0x64], 417, 1152 / 44_100],
    ['the same with padding', [0xff, 0xfb, 0x92, 0x64], 418, 1152 / 44_100],
    ['MPEG-1 layer III, 320 kbit/s, 48 kHz', [0xff, 0xfb, 0xe4, 0x00], 960, 1152 / 48_000],
    ['MPEG-1 layer II, 192 kbit/s, 48 kHz', [0xff, 0xfd, 0xa4, 0x00], 576, 1152 / 48_000],
    ['MPEG-1 layer I, 384 kbit/s, 44.1 kHz', [0xff, 0xff, 0xc0, 0x00], 416, 384 / 44_100],
    ['MPEG-2 layer III, 64 kbit/s, 22.05 kHz', [0xff, 0xf3, 0x80, 0x00], 208, 576 / 22_050],
    [
      'MPEG-2.5 layer III, 8 kbit/s, 8 kHz: the smallest bitrate there is',
      [0xff, 0xe3, 0x18, 0x00],
      72,
      576 / 8_000,
    ],
  ])('reads %s', (_label, header, bytes, seconds) => {
    expect(mpegFrameAt(Buffer.from(header), 0)).toEqual({ bytes, seconds });
  });

  it.each<[string, number[]]>([
    ['no sync', [0xfe, 0xfb, 0x90, 0x64]],
    ['free format (bitrate index 0)', [0xff, 0xfb, 0x00, 0x64]],
    ['bitrate index 15', [0xff, 0xfb, 0xf0, 0x64]],
    ['the reserved sample rate', [0xff, 0xfb, 0x9c, 0x64]],
    ['the reserved version', [0xff, 0xeb, 0x90, 0x64]],
    ['the reserved layer', [0xff, 0xf9, 0x90, 0x64]],
    ['a header cut short', [0xff, 0xfb, 0x90]],
  ])('finds no frame at %s', (_label, header) => {
    expect(mpegFrameAt(Buffer.from(header), 0)).toBeNull();
  });
});

describe('mp3Length', () => {
  it('counts the audit file: 1 532 frames at 128 kbit/s are 40.02 s', () => {
    expect(mp3Length(mp3Frames(1532))).toEqual({
      seconds: expect.closeTo((1532 * 1152) / 44_100, 9),
      exact: false,
    });
  });

  it('skips ID3v2 tags, even holding frame-like bytes', () => {
    const tag = id3Tag(2_000);
    tag.set([0xff, 0xfb, 0x90, 0x64], 100);
    expect(mp3Length(Buffer.concat([tag, id3Tag(50), mp3Frames(10)])).seconds).toBeCloseTo(
      (10 * 1152) / 44_100,
      9,
    );
  });

  it('passes over junk between frames and ignores a last frame cut short', () => {
    const bytes = Buffer.concat([
      mp3Frames(5),
      Buffer.from('TAG junk that is no frame'),
      mp3Frames(5),
      mp3Frames(1).subarray(0, 200),
    ]);
    expect(mp3Length(bytes).seconds).toBeCloseTo((10 * 1152) / 44_100, 9);
  });

  it('does not believe a Xing frame count', () => {
    const frames = mp3Frames(3);
    frames.write('Xing', 36, 'latin1');
    frames.writeUInt32BE(1, 40);
    frames.writeUInt32BE(1_000_000, 44);
    expect(mp3Length(frames).seconds).toBeCloseTo((3 * 1152) / 44_100, 9);
  });

  it.each<[string, Buffer]>([
    ['a tag and no frame', Buffer.concat([id3Tag(100), Buffer.alloc(5_000)])],
    ['one sync word and zeros', Buffer.concat([Buffer.from([0xff, 0xfb, 0x90, 0x64]), Buffer.alloc(300)])],
  ])('refuses %s on file', (_label, bytes) => {
    expect(audioRefusal(() => mp3Length(bytes))).toEqual({
      code: 'invalid_request',
      param: 'file',
      message: 'The MP3 file holds no complete MPEG audio frame',
    });
  });
});
