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

export function rememberSecretValue(value: string): void {
  if (value.length >= MIN_KNOWN_SECRET_CHARS) knownSecrets.add(value);
}

export function forgetSecretValue(value: string): void {
  knownSecrets.delete(value);
}

function redactKnown(text: string): string {
  let result = text;
  for (const value of knownSecrets) if (result.includes(value)) result = result.split(value).join(REDACTED);
  return result;
}

export function redact(text: string): string {
  let result = redactKnown(text.length > MAX_REDACTED_CHARS ? `${text.slice(0, MAX_REDACTED_CHARS)}… [cut]` : text);
  for (const [pattern, replacement] of RULES) result = result.replace(pattern, replacement);
  // Long mixed-case random strings (generic API keys). Container ids and image digests are
  // lower-case hex, and "/" is left out so paths stay readable. Checked in a function, not
  // lookaheads, to stay linear.
  return result.replace(/[A-Za-z0-9+_-]{32,}={0,2}/g, (run) =>
    /[A-Z]/.test(run) && /[a-z]/.test(run) && /\d/.test(run) ? REDACTED : run,
  );
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
