/** Bits packed most significant first, as JPEG's entropy coder and H.264's bitstream pack them. */
export class MsbFirstBits {
  private readonly bytes: number[] = [];
  private pending = 0;
  private pendingBits = 0;

  write(value: number, bitCount: number): this {
    for (let bit = bitCount - 1; bit >= 0; bit--) {
      this.pending = (this.pending << 1) | ((value >>> bit) & 1);
      if (++this.pendingBits === 8) this.flushByte();
    }
    return this;
  }

  /** H.264's ue(v): unsigned Exp-Golomb. */
  writeUnsignedGolomb(value: number): this {
    const code = value + 1;
    const length = Math.floor(Math.log2(code));
    return this.write(0, length).write(code, length + 1);
  }

  /** H.264's se(v): signed Exp-Golomb. */
  writeSignedGolomb(value: number): this {
    return this.writeUnsignedGolomb(value > 0 ? 2 * value - 1 : -2 * value);
  }

  /** Fills the current byte with `bit` (zeros for H.264's alignment, ones for JPEG's). */
  align(bit: 0 | 1): this {
    while (this.pendingBits !== 0) this.write(bit, 1);
    return this;
  }

  writeBytes(bytes: Uint8Array): this {
    if (this.pendingBits !== 0) throw new Error('writeBytes needs a byte boundary');
    for (const byte of bytes) this.bytes.push(byte);
    return this;
  }

  toBuffer(): Buffer {
    if (this.pendingBits !== 0) throw new Error('the last byte is not complete');
    return Buffer.from(this.bytes);
  }

  private flushByte(): void {
    this.bytes.push(this.pending);
    this.pending = 0;
    this.pendingBits = 0;
  }
}

/** Bits packed least significant first, as WebP's lossless bitstream packs them. */
export class LsbFirstBits {
  private readonly bytes: number[] = [];
  private pending = 0;
  private pendingBits = 0;

  write(value: number, bitCount: number): this {
    for (let bit = 0; bit < bitCount; bit++) {
      this.pending |= ((value >>> bit) & 1) << this.pendingBits;
      if (++this.pendingBits === 8) {
        this.bytes.push(this.pending);
        this.pending = 0;
        this.pendingBits = 0;
      }
    }
    return this;
  }

  /** The bits so far, the last byte padded with zeros. */
  toBuffer(): Buffer {
    return Buffer.from(this.pendingBits === 0 ? this.bytes : [...this.bytes, this.pending]);
  }
}
