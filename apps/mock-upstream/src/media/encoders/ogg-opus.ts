/** A 20 ms mono CELT frame that decodes to silence (TOC 0xF8, then the silence frame 0xFF 0xFE). */
const SILENT_PACKET = Buffer.from([0xf8, 0xff, 0xfe]);
const PACKET_MS = 20;
const OPUS_RATE = 48_000;
const PACKETS_PER_PAGE = 255;
const BEGINNING_OF_STREAM = 0x02;
const END_OF_STREAM = 0x04;
const SERIAL = 0x6d6f636b;

/**
 * Opus in Ogg (RFC 7845), OpenAI's `opus` speech format: the identification and comment headers,
 * then silent 20 ms packets enough to last at least `durationMs`.
 */
export function encodeOggOpus(durationMs: number): Buffer {
  const head = Buffer.alloc(19);
  head.write('OpusHead', 0, 'ascii');
  head.writeUInt8(1, 8); // version
  head.writeUInt8(1, 9); // channels
  head.writeUInt16LE(0, 10); // pre-skip
  head.writeUInt32LE(OPUS_RATE, 12);
  const vendor = Buffer.from('mock-upstream', 'ascii');
  const tags = Buffer.concat([Buffer.from('OpusTags', 'ascii'), u32(vendor.length), vendor, u32(0)]);
  const pages = [page([head], 0, 0, BEGINNING_OF_STREAM), page([tags], 0, 1, 0)];
  const packets = Math.max(1, Math.ceil(durationMs / PACKET_MS));
  for (let first = 0; first < packets; first += PACKETS_PER_PAGE) {
    const count = Math.min(PACKETS_PER_PAGE, packets - first);
    const last = first + count === packets;
    const granule = ((first + count) * PACKET_MS * OPUS_RATE) / 1000;
    pages.push(
      page(new Array<Buffer>(count).fill(SILENT_PACKET), granule, pages.length, last ? END_OF_STREAM : 0),
    );
  }
  return Buffer.concat(pages);
}

/** One page of whole packets, each shorter than 255 bytes. */
function page(packets: Buffer[], granule: number, sequence: number, flags: number): Buffer {
  const header = Buffer.alloc(27);
  header.write('OggS', 0, 'ascii');
  header.writeUInt8(flags, 5);
  header.writeBigUInt64LE(BigInt(granule), 6);
  header.writeUInt32LE(SERIAL, 14);
  header.writeUInt32LE(sequence, 18);
  header.writeUInt8(packets.length, 26);
  const pageBytes = Buffer.concat([header, Buffer.from(packets.map((packet) => packet.length)), ...packets]);
  pageBytes.writeUInt32LE(oggCrc(pageBytes), 22);
  return pageBytes;
}

const CRC_TABLE = Array.from({ length: 256 }, (_, index) => {
  let value = index << 24;
  for (let bit = 0; bit < 8; bit++) value = value & 0x80000000 ? (value << 1) ^ 0x04c11db7 : value << 1;
  return value >>> 0;
});

/** Ogg's CRC-32: polynomial 0x04C11DB7, not reflected, no initial or final XOR. */
function oggCrc(bytes: Buffer): number {
  let crc = 0;
  for (const byte of bytes) crc = ((crc << 8) ^ CRC_TABLE[((crc >>> 24) ^ byte) & 0xff]) >>> 0;
  return crc;
}

function u32(value: number): Buffer {
  const buffer = Buffer.alloc(4);
  buffer.writeUInt32LE(value);
  return buffer;
}
