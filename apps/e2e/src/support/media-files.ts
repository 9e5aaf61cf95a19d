/**
 * What a client can tell of a generated file from its bytes alone: the format's signature and the
 * size it declares, read from the formats' specifications rather than from the encoder that wrote them.
 */

export interface ImageFacts {
  format: 'png' | 'jpeg' | 'webp';
  width: number;
  height: number;
}

/** A PNG's IHDR, a baseline JPEG's SOF0 frame, or a lossless WebP's VP8L header. */
export function readImage(file: Buffer): ImageFacts {
  if (file.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) {
    if (file.toString('ascii', 12, 16) !== 'IHDR') throw new Error('PNG without IHDR first');
    return { format: 'png', width: file.readUInt32BE(16), height: file.readUInt32BE(20) };
  }
  if (file[0] === 0xff && file[1] === 0xd8) {
    if (file[file.length - 2] !== 0xff || file[file.length - 1] !== 0xd9) throw new Error('JPEG without EOI');
    for (let at = 2; at + 9 < file.length; at += 2 + file.readUInt16BE(at + 2)) {
      if (file[at] !== 0xff) throw new Error(`JPEG segment without a marker at ${at}`);
      if (file[at + 1] === 0xc0)
        return { format: 'jpeg', height: file.readUInt16BE(at + 5), width: file.readUInt16BE(at + 7) };
    }
    throw new Error('JPEG without SOF0');
  }
  if (file.toString('ascii', 0, 4) === 'RIFF' && file.toString('ascii', 8, 12) === 'WEBP') {
    if (file.readUInt32LE(4) !== file.length - 8) throw new Error('WebP RIFF length differs from the file');
    if (file.toString('ascii', 12, 16) !== 'VP8L' || file[20] !== 0x2f) throw new Error('WebP is not VP8L');
    const bits = file.readUInt32LE(21);
    return { format: 'webp', width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
  }
  throw new Error(`Not a PNG, JPEG or WebP: ${file.subarray(0, 16).toString('hex')}`);
}

export type AudioFormat = 'mp3' | 'wav' | 'ogg';

/** MPEG audio frame sync (or an ID3 tag), a RIFF WAVE whose length fits the file, or an Ogg page. */
export function audioFormatOf(file: Buffer): AudioFormat {
  if (file.toString('ascii', 0, 3) === 'ID3' || (file[0] === 0xff && (file[1] & 0xe0) === 0xe0)) return 'mp3';
  if (file.toString('ascii', 0, 4) === 'RIFF' && file.toString('ascii', 8, 12) === 'WAVE') {
    if (file.readUInt32LE(4) !== file.length - 8) throw new Error('WAV RIFF length differs from the file');
    return 'wav';
  }
  if (file.toString('ascii', 0, 4) === 'OggS') return 'ogg';
  throw new Error(`Not MP3, WAV or Ogg: ${file.subarray(0, 16).toString('hex')}`);
}

/** An MP4 starts with its `ftyp` box. */
export function isMp4(file: Buffer): boolean {
  return file.length > 12 && file.toString('ascii', 4, 8) === 'ftyp' && file.readUInt32BE(0) <= file.length;
}

/** The bytes at a result file's url, read without credentials as the interface promises. */
export async function download(url: string): Promise<{ status: number; type: string | null; bytes: Buffer }> {
  const response = await fetch(url);
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    bytes: Buffer.from(await response.arrayBuffer()),
  };
}
