/**
 * Where each stored line starts in the log file, and its stream, in typed arrays: 9 bytes per line,
 * so a million lines cost about 9 MB (17 MB while an array doubles), never the lines themselves.
 */
export class LineIndex {
  /** offsets[i] = byte offset of line i; offsets[count] = the file's length. */
  private offsets = new Float64Array(1024);
  /** 1 = stderr. */
  private streams = new Uint8Array(1024);
  count = 0;

  constructor(startBytes = 0) {
    this.offsets[0] = startBytes;
  }

  get bytes(): number {
    return this.offsets[this.count]!;
  }

  add(lengthWithNewline: number, stderr: boolean): void {
    if (this.count + 1 >= this.offsets.length) {
      const offsets = new Float64Array(this.offsets.length * 2);
      offsets.set(this.offsets);
      this.offsets = offsets;
      const streams = new Uint8Array(this.streams.length * 2);
      streams.set(this.streams);
      this.streams = streams;
    }
    this.streams[this.count] = stderr ? 1 : 0;
    this.offsets[this.count + 1] = this.offsets[this.count]! + lengthWithNewline;
    this.count += 1;
  }

  start(line: number): number {
    return this.offsets[line]!;
  }

  isStderr(line: number): boolean {
    return this.streams[line] === 1;
  }
}

/** A growable list of line numbers (the lines that pass one filter). */
export class LineList {
  private items = new Uint32Array(256);
  count = 0;

  push(line: number): void {
    if (this.count === this.items.length) {
      const items = new Uint32Array(this.items.length * 2);
      items.set(this.items);
      this.items = items;
    }
    this.items[this.count] = line;
    this.count += 1;
  }

  at(index: number): number {
    return this.items[index]!;
  }
}
