/**
 * Python's text behaviour where a client of upstream's swarm server can see it: json.loads (which texts it
 * accepts and the exact message and character offset of a JSONDecodeError, both echoed in FastAPI's 422 and in
 * the chat route's 401 text), json.dumps separators, base64.b64decode without validation, and a few format
 * strings. A script that parses these errors on the GPU server must see the same text here.
 */

export class PyJsonDecodeError extends Error {
  /** The message without position, e.g. "Expecting value" (FastAPI's ctx.error). */
  readonly msg: string;
  /** Character offset (FastAPI's loc entry). */
  readonly pos: number;
  constructor(msg: string, doc: string, pos: number) {
    const before = doc.slice(0, pos);
    const lineno = before.split('\n').length;
    const colno = pos - (before.lastIndexOf('\n') + 1) + 1;
    super(`${msg}: line ${lineno} column ${colno} (char ${pos})`);
    this.msg = msg;
    this.pos = pos;
  }
}

export type PyJson = null | boolean | number | string | PyJson[] | { [key: string]: PyJson };

const WHITESPACE = ' \t\n\r';
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?/y;
const SIMPLE_ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
const CONSTANTS: Array<[string, PyJson]> = [
  ['null', null],
  ['true', true],
  ['false', false],
  ['NaN', Number.NaN],
  ['Infinity', Number.POSITIVE_INFINITY],
  ['-Infinity', Number.NEGATIVE_INFINITY],
];

/** json.loads(text) as CPython 3.12's scanner does it. Throws PyJsonDecodeError. */
export function pyJsonLoads(text: string): PyJson {
  if (text.startsWith('\ufeff')) throw new PyJsonDecodeError('Unexpected UTF-8 BOM (decode using utf-8-sig)', text, 0);
  return new PyJsonScanner(text).document();
}

class PyJsonScanner {
  private at = 0;
  constructor(private readonly text: string) {}

  document(): PyJson {
    this.skipSpace();
    const value = this.value();
    this.skipSpace();
    if (this.at !== this.text.length) this.fail('Extra data');
    return value;
  }

  private fail(msg: string, pos = this.at): never {
    throw new PyJsonDecodeError(msg, this.text, pos);
  }

  private skipSpace(): void {
    while (this.at < this.text.length && WHITESPACE.includes(this.text[this.at]!)) this.at++;
  }

  private value(): PyJson {
    const c = this.text[this.at];
    if (c === '"') return this.string();
    if (c === '{') return this.object();
    if (c === '[') return this.array();
    for (const [word, value] of CONSTANTS) {
      if (this.text.startsWith(word, this.at)) {
        this.at += word.length;
        return value;
      }
    }
    NUMBER.lastIndex = this.at;
    const match = NUMBER.exec(this.text);
    if (match && match[0] !== '-') {
      this.at += match[0].length;
      return Number(match[0]);
    }
    return this.fail('Expecting value');
  }

  private string(): string {
    const begin = this.at;
    this.at++;
    let out = '';
    for (;;) {
      const c = this.text[this.at];
      if (c === undefined) this.fail('Unterminated string starting at', begin);
      if (c === '"') {
        this.at++;
        return out;
      }
      if (c === '\\') {
        const escape = this.text[this.at + 1];
        if (escape === undefined) this.fail('Unterminated string starting at', begin);
        if (escape === 'u') {
          const hex = this.text.slice(this.at + 2, this.at + 6);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.fail('Invalid \\uXXXX escape', this.at + 1);
          out += String.fromCharCode(parseInt(hex, 16));
          this.at += 6;
        } else if (escape in SIMPLE_ESCAPES) {
          out += SIMPLE_ESCAPES[escape];
          this.at += 2;
        } else this.fail('Invalid \\escape');
        continue;
      }
      if (c < ' ') this.fail('Invalid control character at');
      out += c;
      this.at++;
    }
  }

  private object(): { [key: string]: PyJson } {
    this.at++;
    const out: { [key: string]: PyJson } = {};
    this.skipSpace();
    if (this.text[this.at] === '}') {
      this.at++;
      return out;
    }
    for (;;) {
      if (this.text[this.at] !== '"') this.fail('Expecting property name enclosed in double quotes');
      const key = this.string();
      this.skipSpace();
      if (this.text[this.at] !== ':') this.fail("Expecting ':' delimiter");
      this.at++;
      this.skipSpace();
      out[key] = this.value();
      this.skipSpace();
      if (this.text[this.at] === '}') {
        this.at++;
        return out;
      }
      if (this.text[this.at] !== ',') this.fail("Expecting ',' delimiter");
      this.at++;
      this.skipSpace();
    }
  }

  private array(): PyJson[] {
    this.at++;
    const out: PyJson[] = [];
    this.skipSpace();
    if (this.text[this.at] === ']') {
      this.at++;
      return out;
    }
    for (;;) {
      out.push(this.value());
      this.skipSpace();
      if (this.text[this.at] === ']') {
        this.at++;
        return out;
      }
      if (this.text[this.at] !== ',') this.fail("Expecting ',' delimiter");
      this.at++;
      this.skipSpace();
    }
  }
}

/** bytes.decode('utf-8'); throws with Python's wording on invalid UTF-8. */
export function decodeUtf8(bytes: Buffer): string {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    const at = firstInvalidUtf8Byte(bytes);
    const hex = (bytes[at] ?? 0).toString(16).padStart(2, '0');
    throw new Error(`'utf-8' codec can't decode byte 0x${hex} in position ${at}: invalid start byte`);
  }
}

function firstInvalidUtf8Byte(bytes: Buffer): number {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  for (let end = 1; end <= bytes.length; end++) {
    try {
      decoder.decode(bytes.subarray(0, end), { stream: true });
    } catch {
      return end - 1;
    }
  }
  return 0;
}

const BASE64_ALPHABET = /[A-Za-z0-9+/]/;

/** base64.b64decode(text) without validate=True: other characters are dropped, then the padding is checked. */
export function pyB64Decode(text: string): Buffer {
  let data = '';
  let padding = 0;
  for (const c of text) {
    if (c === '=') padding++;
    else if (padding === 0 && BASE64_ALPHABET.test(c)) data += c;
  }
  const rest = data.length % 4;
  if (rest === 1) {
    throw new Error(`Invalid base64-encoded string: number of data characters (${data.length}) cannot be 1 more than a multiple of 4`);
  }
  if (rest !== 0 && padding < 4 - rest) throw new Error('Incorrect padding');
  return Buffer.from(data, 'base64');
}

/** type(x).__name__ of a parsed JSON value, for Python's "'list' object has no attribute 'get'". */
export function pyTypeName(value: PyJson): string {
  if (value === null) return 'NoneType';
  if (Array.isArray(value)) return 'list';
  if (typeof value === 'string') return 'str';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'float';
  return 'dict';
}

/** json.dumps(dict) with Python's default separators (", " and ": "), for a flat dict of strings. */
export function pyJsonDumpsFlat(entries: Record<string, string>): string {
  return `{${Object.entries(entries)
    .map(([key, value]) => `${JSON.stringify(key)}: ${JSON.stringify(value)}`)
    .join(', ')}}`;
}

/** f"{x:.1f}s", the seconds format of running_episode_details. */
export function pySeconds1(seconds: number): string {
  return `${seconds.toFixed(1)}s`;
}

/** time.time(): Unix seconds as a float. */
export function unixSeconds(): number {
  return Date.now() / 1000;
}

/** repr(x) of a value yaml.safe_load returned (dict, list, str, int, float, bool, None), for error texts that print it. */
export function pyRepr(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'number') {
    if (Number.isNaN(value)) return 'nan';
    if (!Number.isFinite(value)) return value > 0 ? 'inf' : '-inf';
    return String(value);
  }
  if (typeof value === 'string') {
    // Python picks double quotes only when the text holds a single quote and no double quote.
    const quote = value.includes("'") && !value.includes('"') ? '"' : "'";
    const body = value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/\r/g, '\\r').replace(/\t/g, '\\t');
    return quote + (quote === "'" ? body.replace(/'/g, "\\'") : body) + quote;
  }
  if (Array.isArray(value)) return `[${value.map(pyRepr).join(', ')}]`;
  if (value instanceof Date) return `datetime.datetime(${value.getUTCFullYear()}, ${value.getUTCMonth() + 1}, ${value.getUTCDate()}, 0, 0)`;
  return `{${Object.entries(value as Record<string, unknown>)
    .map(([key, item]) => `${pyRepr(key)}: ${pyRepr(item)}`)
    .join(', ')}}`;
}
