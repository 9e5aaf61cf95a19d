import { streamInfo } from './flac-length';
import { invalidAudio, type StatedLength } from './stated-length';

/** Granule positions per second, and the samples to drop at the start (Opus pre-skip), of the first stream's codec. */
interface GranuleClock {
  rate: number;
  preSkip: number;
}

/** A page's granule position when no packet ends on it. */
const NO_GRANULE = 0xffff_ffff_ffff_ffffn;
const PAGE_HEADER_BYTES = 27;

/**
 * The clock of the codec whose identification packet starts the stream: Opus (always 48 kHz),
 * Vorbis, FLAC or Speex; null for another codec (a video stream first, say).
 */
function granuleClock(packet: Buffer): GranuleClock | null {
  const text = (start: number, end: number) => packet.toString('latin1', start, end);
  const clock = (rate: number, preSkip = 0): GranuleClock => {
    if (rate === 0) throw invalidAudio('The Ogg stream states a sample rate of 0');
    return { rate, preSkip };
  };
  if (text(0, 8) === 'OpusHead' && packet.length >= 12) return clock(48_000, packet.readUInt16LE(10));
  if (packet[0] === 0x01 && text(1, 7) === 'vorbis' && packet.length >= 16)
    return clock(packet.readUInt32LE(12));
  if (text(0, 8) === 'Speex   ' && packet.length >= 40) return clock(packet.readUInt32LE(36));
  // The FLAC mapping header (13 bytes) and a metadata block header (4) come before STREAMINFO.
  if (packet[0] === 0x7f && text(1, 5) === 'FLAC' && text(9, 13) === 'fLaC')
    return clock(streamInfo(packet, 17).sampleRate);
  return null;
}

/**
 * An Ogg file's length by its pages: the granule position of the first stream's last complete page
 * (the samples decoded up to there) over its codec's rate. The granule positions are the sender's
 * word, so the length is not exact and audioLength bounds it by the bytes; null for a codec without a
 * known clock or a stream without a granule.
 */
export function oggLength(bytes: Buffer): StatedLength | null {
  let clock: GranuleClock | null = null;
  let serial: number | null = null;
  let lastGranule: bigint | null = null;
  let offset = 0;
  while (offset + PAGE_HEADER_BYTES <= bytes.length) {
    if (bytes.toString('latin1', offset, offset + 4) !== 'OggS') {
      // What is not a page is passed over, as a decoder resynchronises on the next capture pattern.
      const next = bytes.indexOf('OggS', offset + 1, 'latin1');
      if (next < 0) break;
      offset = next;
      continue;
    }
    const segments = bytes[offset + 26];
    const body = offset + PAGE_HEADER_BYTES + segments;
    if (body > bytes.length) break;
    let bodyBytes = 0;
    for (let i = 0; i < segments; i++) bodyBytes += bytes[offset + PAGE_HEADER_BYTES + i];
    if (body + bodyBytes > bytes.length) break;
    const pageSerial = bytes.readUInt32LE(offset + 14);
    if (serial === null) {
      serial = pageSerial;
      clock = granuleClock(bytes.subarray(body, body + bodyBytes));
      if (!clock) return null;
    }
    const granule = bytes.readBigUInt64LE(offset + 6);
    if (pageSerial === serial && granule !== NO_GRANULE) lastGranule = granule;
    offset = body + bodyBytes;
  }
  if (!clock || lastGranule === null) return null;
  return { seconds: Math.max(0, Number(lastGranule) - clock.preSkip) / clock.rate, exact: false };
}
