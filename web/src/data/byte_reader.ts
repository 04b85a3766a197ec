// Reads the little-endian, varint-packed columns that src/report/visualize/page_data_encoder.cc writes.
//
// Varints are unsigned LEB128; signed values are zigzag-coded. Values are read into JS numbers,
// exact up to 2^53 (the encoder writes larger integers as decimal strings instead).

export class ByteReader {
  private pos = 0;
  private readonly view: DataView;

  constructor(private readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  get offset(): number {
    return this.pos;
  }

  atEnd(): boolean {
    return this.pos >= this.bytes.length;
  }

  u8(): number {
    if (this.pos >= this.bytes.length) throw new Error(`page data truncated at byte ${this.pos}`);
    return this.bytes[this.pos++];
  }

  varint(): number {
    let result = 0;
    let scale = 1;
    for (;;) {
      const b = this.u8();
      result += (b & 0x7f) * scale;
      if (b < 0x80) return result;
      scale *= 128;
      if (scale > 2 ** 63) throw new Error(`bad varint at byte ${this.pos}`);
    }
  }

  // Zigzag: 0 -> 0, 1 -> -1, 2 -> 1, 3 -> -2, ...
  svarint(): number {
    const z = this.varint();
    return z % 2 === 0 ? z / 2 : -(z + 1) / 2;
  }

  f64(): number {
    if (this.pos + 8 > this.bytes.length) throw new Error(`page data truncated at byte ${this.pos}`);
    const v = this.view.getFloat64(this.pos, true);
    this.pos += 8;
    return v;
  }

  bytesOf(n: number): Uint8Array {
    if (this.pos + n > this.bytes.length) throw new Error(`page data truncated at byte ${this.pos}`);
    const out = this.bytes.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  utf8(decoder: TextDecoder): string {
    const n = this.varint();
    return decoder.decode(this.bytesOf(n));
  }
}
