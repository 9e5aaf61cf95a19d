import { invalidAudio, type StatedLength } from './stated-length';

interface Box {
  type: string;
  /** Where the box's content starts and ends (the end clipped to the bytes present). */
  start: number;
  end: number;
}

/** The boxes laid end to end between `start` and `end`; a size that cannot be (below its own header) ends the list. */
function boxes(bytes: Buffer, start: number, end: number): Box[] {
  const found: Box[] = [];
  for (let offset = start; offset + 8 <= end;) {
    const size32 = bytes.readUInt32BE(offset);
    const type = bytes.toString('latin1', offset + 4, offset + 8);
    let header = 8;
    let size = size32;
    if (size32 === 1) {
      if (offset + 16 > end) break;
      header = 16;
      size = Number(bytes.readBigUInt64BE(offset + 8));
    } else if (size32 === 0) {
      // Size 0: the box runs to the end of its parent.
      size = end - offset;
    }
    if (size < header) break;
    found.push({ type, start: offset + header, end: Math.min(offset + size, end) });
    offset += size;
  }
  return found;
}

/** A 32- or 64-bit field of a full box, by its version; the all-ones value means "unknown" and reads 0. */
function versionedField(bytes: Buffer, offset: number, wide: boolean): number {
  if (wide) {
    const value = bytes.readBigUInt64BE(offset);
    return value === 0xffff_ffff_ffff_ffffn ? 0 : Number(value);
  }
  const value = bytes.readUInt32BE(offset);
  return value === 0xffff_ffff ? 0 : value;
}

/**
 * An M4A (ISO base media) file's length as its movie header states it: `mvhd` duration over its
 * timescale, or for a fragmented file without one the `mehd` fragment duration. These are the
 * sender's word, so the length is not exact and audioLength bounds it by the bytes; null when the
 * file states none (a fragmented recording written live).
 */
export function m4aLength(bytes: Buffer): StatedLength | null {
  const movie = boxes(bytes, 0, bytes.length).find((box) => box.type === 'moov');
  if (!movie) throw invalidAudio('The M4A file has no movie box (moov)');
  const children = boxes(bytes, movie.start, movie.end);
  const header = children.find((box) => box.type === 'mvhd');
  if (!header || header.end - header.start < 20)
    throw invalidAudio('The M4A file has no complete movie header (mvhd)');
  const wide = bytes[header.start] === 1;
  if (wide && header.end - header.start < 32)
    throw invalidAudio('The M4A file has no complete movie header (mvhd)');
  // After version and flags: creation and modification times, then the timescale and the duration.
  const timescale = bytes.readUInt32BE(header.start + (wide ? 20 : 12));
  if (timescale === 0) throw invalidAudio('The M4A movie header states a timescale of 0');
  let duration = versionedField(bytes, header.start + (wide ? 24 : 16), wide);
  if (duration === 0) duration = fragmentDuration(bytes, children);
  return duration === 0 ? null : { seconds: duration / timescale, exact: false };
}

/** `moov/mvex/mehd`'s fragment duration, in the movie's timescale; 0 when absent. */
function fragmentDuration(bytes: Buffer, movieChildren: Box[]): number {
  const movieExtends = movieChildren.find((box) => box.type === 'mvex');
  const header =
    movieExtends && boxes(bytes, movieExtends.start, movieExtends.end).find((box) => box.type === 'mehd');
  if (!header) return 0;
  const wide = bytes[header.start] === 1;
  if (header.end - header.start < (wide ? 12 : 8)) return 0;
  return versionedField(bytes, header.start + 4, wide);
}
