const BLOCK = 512;

function octal(header: Buffer, offset: number, length: number): number {
  // Sizes past 8 GiB use base-256 (high bit set); a log that size is read from its pax size instead.
  if ((header[offset]! & 0x80) !== 0) return Number.NaN;
  const text = header.subarray(offset, offset + length).toString('latin1').replace(/[\0 ]+$/g, '').trim();
  return text === '' ? 0 : parseInt(text, 8);
}

/**
 * Reads the first regular file of a tar stream (what Docker's archive API sends for one file) and
 * keeps only its last `maxBytes`, so a log file of gigabytes never sits in memory. Knows the entry
 * kinds Docker writes in front of a file: pax headers (`x`, `g`, with `size=` for huge files) and
 * GNU long names (`L`, `K`).
 */
export class TarTail {
  private buffer: Buffer = Buffer.alloc(0);
  /** Bytes of the current entry still to come, and whether they are the file (kept) or skipped. */
  private remaining = 0;
  private padding = 0;
  private mode: 'header' | 'skip' | 'pax' | 'file' = 'header';
  private paxSize: number | null = null;
  private paxText = '';
  private kept: Buffer[] = [];
  private keptBytes = 0;
  private truncated = false;
  private found = false;
  done = false;

  constructor(private readonly maxBytes: number) {}

  push(chunk: Buffer): void {
    this.buffer = this.buffer.length > 0 ? Buffer.concat([this.buffer, chunk]) : chunk;
    while (!this.done) {
      if (this.mode === 'header') {
        if (this.buffer.length < BLOCK) return;
        this.readHeader(this.buffer.subarray(0, BLOCK));
        this.buffer = this.buffer.subarray(BLOCK);
        continue;
      }
      if (this.remaining > 0) {
        if (this.buffer.length === 0) return;
        const take = Math.min(this.remaining, this.buffer.length);
        this.consume(this.buffer.subarray(0, take));
        this.buffer = this.buffer.subarray(take);
        this.remaining -= take;
        if (this.remaining > 0) return;
      }
      if (this.buffer.length < this.padding) {
        this.padding -= this.buffer.length;
        this.buffer = Buffer.alloc(0);
        return;
      }
      this.buffer = this.buffer.subarray(this.padding);
      this.padding = 0;
      if (this.mode === 'file') {
        this.done = true;
        return;
      }
      if (this.mode === 'pax') {
        const size = /(?:^|\n)\d+ size=(\d+)\n/.exec(this.paxText);
        if (size) this.paxSize = Number(size[1]);
      }
      this.mode = 'header';
    }
  }

  /** The file's last bytes as text, starting at a line start when cut; null when no file came. */
  result(): string | null {
    if (!this.found) return null;
    let bytes = Buffer.concat(this.kept);
    const cut = this.truncated || bytes.length > this.maxBytes;
    if (bytes.length > this.maxBytes) bytes = bytes.subarray(bytes.length - this.maxBytes);
    if (cut) {
      const newline = bytes.indexOf(10);
      if (newline >= 0) bytes = bytes.subarray(newline + 1);
    }
    return bytes.toString('utf8');
  }

  private readHeader(header: Buffer): void {
    if (header.every((byte) => byte === 0)) {
      // The end-of-archive marker: no (further) file.
      this.done = true;
      return;
    }
    const type = String.fromCharCode(header[156] ?? 0);
    let size = octal(header, 124, 12);
    if (this.paxSize !== null) size = this.paxSize;
    if (Number.isNaN(size)) size = 0;
    this.remaining = size;
    this.padding = (BLOCK - (size % BLOCK)) % BLOCK;
    if (type === 'x' || type === 'g') {
      this.mode = 'pax';
      this.paxText = '';
      return;
    }
    this.paxSize = null;
    if (type === '0' || type === '\0' || type === '7') {
      this.mode = 'file';
      this.found = true;
      if (size === 0) this.done = true;
      return;
    }
    // Directories, links, long names: skipped (a link to a log is not followed).
    this.mode = 'skip';
  }

  private consume(bytes: Buffer): void {
    if (this.mode === 'pax') {
      this.paxText += bytes.toString('utf8');
      return;
    }
    if (this.mode !== 'file') return;
    this.kept.push(Buffer.from(bytes));
    this.keptBytes += bytes.length;
    // Drop whole chunks that fall out of the window, so memory stays near `maxBytes`.
    while (this.kept.length > 1 && this.keptBytes - this.kept[0]!.length >= this.maxBytes) {
      this.keptBytes -= this.kept.shift()!.length;
      this.truncated = true;
    }
  }
}
