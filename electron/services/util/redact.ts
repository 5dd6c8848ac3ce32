/**
 * Scrubs anything that looks like a credential from text headed for the app log or the UI's log
 * view. It errs on the side of hiding too much: a log line with "[REDACTED]" costs a little
 * debugging, a leaked key costs the user an account.
 */
export const REDACTED = '[REDACTED]';

/** Names whose values are secrets: api_key, HF_TOKEN, password, Authorization, client-secret, … */
const SECRET_NAME = String.raw`[\w.-]{0,40}(?:pass(?:word|wd|phrase)?|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|credential|authorization|auth|cookie|session[_-]?id)[\w.-]{0,40}`;

const RULES: ReadonlyArray<[RegExp, string]> = [
  // PEM blocks (SSH and TLS private keys), whole.
  [/-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)/g, REDACTED],
  // HTTP auth schemes: "Bearer abc", "Basic dXNlcjpwYXNz".
  [/\b(Bearer|Basic|Token)\s+[A-Za-z0-9._~+/=-]{4,}/gi, `$1 ${REDACTED}`],
  // Passwords in URLs: scheme://user:password@host.
  [/\b([a-z][a-z0-9+.-]{0,20}:\/\/[^\s:/@]{1,64}):[^\s/@]{1,256}@/gi, `$1:${REDACTED}@`],
  // name=value, name: value, "name": "value" (JSON), with the name looking secret.
  [
    new RegExp(String.raw`(["']?${SECRET_NAME}["']?\s*[=:]\s*)("(?:[^"\\]|\\.)*"|'[^']*'|[^\s,;&)}\]]+)`, 'gi'),
    `$1${REDACTED}`,
  ],
  // Well-known token shapes wherever they stand: OpenAI/Anthropic sk-, GitHub, Hugging Face,
  // AWS access key ids, Slack, JWTs.
  [/\b(?:sk-[A-Za-z0-9_-]{16,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|hf_[A-Za-z0-9]{20,}|AKIA[0-9A-Z]{16}|xox[abprs]-[A-Za-z0-9-]{10,})/g, REDACTED],
  [/\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, REDACTED],
];

/** Longest text redacted in one piece; the rest is cut (every pattern stays linear in this). */
export const MAX_REDACTED_CHARS = 64 * 1024;

/**
 * Secret values the backend holds right now (vault secrets it decrypted or sealed, prompt answers):
 * replaced wherever they appear, whatever their shape. Process-wide on purpose: there is ONE
 * redactor, and a value known to one service must be hidden in every log and payload.
 */
const knownSecrets = new Set<string>();
/** Shorter values are not matched (a 3-character "secret" would blank ordinary words). */
export const MIN_KNOWN_SECRET_CHARS = 6;

/**
 * Each known value with the other forms it takes in text we produce: JSON-escaped (a value with a
 * quote or backslash inside a JSON record or event), so one `includes` per form finds it anywhere.
 */
const knownForms = new Map<string, string[]>();

export function rememberSecretValue(value: string): void {
  if (value.length < MIN_KNOWN_SECRET_CHARS || knownSecrets.has(value)) return;
  knownSecrets.add(value);
  const escaped = JSON.stringify(value).slice(1, -1);
  knownForms.set(value, escaped === value ? [value] : [value, escaped]);
}

export function forgetSecretValue(value: string): void {
  knownSecrets.delete(value);
  knownForms.delete(value);
}

function redactKnown(text: string): string {
  if (knownForms.size === 0) return text;
  let result = text;
  for (const forms of knownForms.values()) {
    for (const form of forms) if (result.includes(form)) result = result.split(form).join(REDACTED);
  }
  return result;
}

/**
 * Something any of RULES could match contains one of these (case-insensitive), or a long run
 * (`hasLongRun`). Tested first because almost no log line does, and this one pass is several times
 * cheaper than the rules (the logs benchmark stores a million lines through here).
 */
const LOG_MARKER = /-----BEGIN|:\/\/|sk-|gh[pousr]_|github_pat_|hf_|AKIA|xox[abprs]-|eyJ|pass|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|credential|auth|cookie|session[_-]?id|bearer|basic/i;
const LONG_RUN = 32;

/** Whether the text has LONG_RUN characters in a row of [A-Za-z0-9+_-] (a loop: cheaper than a regex here). */
function hasLongRun(text: string): boolean {
  let run = 0;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if ((c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 43 || c === 45 || c === 95) {
      run += 1;
      if (run >= LONG_RUN) return true;
    } else run = 0;
  }
  return false;
}

export function redact(text: string): string {
  let result = redactKnown(text.length > MAX_REDACTED_CHARS ? `${text.slice(0, MAX_REDACTED_CHARS)}… [cut]` : text);
  if (!LOG_MARKER.test(result) && !hasLongRun(result)) return result;
  for (const [pattern, replacement] of RULES) result = result.replace(pattern, replacement);
  // Long mixed-case random strings (generic API keys). Container ids and image digests are
  // lower-case hex, and "/" is left out so paths stay readable. Checked in a function, not
  // lookaheads, to stay linear.
  return result.replace(/[A-Za-z0-9+_-]{32,}={0,2}/g, (run) =>
    /[A-Z]/.test(run) && /[a-z]/.test(run) && /\d/.test(run) ? REDACTED : run,
  );
}

/**
 * `redact` over many lines at once (a batch of followed log lines): one check of the joined text
 * first, since a batch without anything to hide (nearly all of them) then costs one pass.
 */
export function redactLines(lines: readonly string[]): readonly string[] {
  const joined = lines.join('\n');
  if (joined.length <= MAX_REDACTED_CHARS && redactKnown(joined) === joined && !LOG_MARKER.test(joined) && !hasLongRun(joined)) return lines;
  return lines.map(redact);
}

const SECRET_KEY = new RegExp(`^${SECRET_NAME}$`, 'i');

/** Redacts a structured value: secret-looking keys lose their value whole, strings are scrubbed. */
export function redactValue(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return redact(value);
  if (depth > 4 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => redactValue(item, depth + 1));
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [key, SECRET_KEY.test(key) ? REDACTED : redactValue(item, depth + 1)]),
  );
}

/**
 * The narrow rules for text the app shows or sends (event and response payloads, error messages,
 * run records): only shapes that are never anything but a credential — PEM private keys, bearer
 * tokens, passwords in URLs, provider key prefixes (`sk-…`) and JWTs. The log rules above also
 * blank `name=value` pairs and long random strings, which would break payloads (host key
 * fingerprints, field names like `passwordSecretId`).
 */
const PAYLOAD_RULES: ReadonlyArray<[RegExp, string]> = [RULES[0]!, [/\b(Bearer)\s+[A-Za-z0-9._~+/=-]{4,}/gi, `$1 ${REDACTED}`], RULES[2]!, RULES[4]!, RULES[5]!];
/** One cheap pass that says whether any PAYLOAD_RULES could match (almost no text does). */
const PAYLOAD_MARKER = /-----BEGIN|bearer\s|:\/\/[^\s/@]*:|\b(?:sk-|gh[pousr]_|github_pat_|hf_|AKIA|xox[abprs]-|eyJ)/i;

/** Known secret values and the narrow credential shapes, for text shown to the user or sent to the UI. */
export function redactText(text: string): string {
  const known = redactKnown(text);
  if (!PAYLOAD_MARKER.test(known)) return known;
  let result = known;
  for (const [pattern, replacement] of PAYLOAD_RULES) result = result.replace(pattern, replacement);
  return result;
}

/** Deeper than any payload of the contract: a cut-off guard against a cyclic or hostile value, not a limit in practice. */
const MAX_PAYLOAD_DEPTH = 64;

/**
 * Every string in a payload (event, response, error) through `redactText`. Copy on change: an
 * untouched payload (the usual case) is returned as it is, without an allocation per node. Field
 * names are kept (payloads are our own contract, not user text).
 */
export function redactPayload<T>(value: T): T {
  return scrubNode(value, 0) as T;
}

function scrubNode(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return value.length === 0 ? value : redactText(value);
  if (value === null || typeof value !== 'object' || depth > MAX_PAYLOAD_DEPTH) return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | null = null;
    for (let i = 0; i < value.length; i += 1) {
      const item: unknown = value[i];
      const scrubbed = scrubNode(item, depth + 1);
      if (scrubbed !== item) (copy ??= value.slice())[i] = scrubbed;
    }
    return copy ?? value;
  }
  const proto = Object.getPrototypeOf(value) as unknown;
  // Plain objects only (JSON-like payloads); Dates, Buffers and class instances pass as they are.
  if (proto !== Object.prototype && proto !== null) return value;
  let copy: Record<string, unknown> | null = null;
  for (const key of Object.keys(value)) {
    const item = (value as Record<string, unknown>)[key];
    const scrubbed = scrubNode(item, depth + 1);
    if (scrubbed !== item) (copy ??= { ...(value as Record<string, unknown>) })[key] = scrubbed;
  }
  return copy ?? value;
}
