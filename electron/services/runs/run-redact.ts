import { REDACTED, redactText } from '../util/redact';

/**
 * A setting whose name says it holds a credential (`api_key:`, `SWANLAB_API_KEY =`, `password:`), with a value
 * that is not a plain number, boolean or null: `max_tokens: 512` stays readable, `api_key: abc123` does not.
 */
const SECRET_SETTING = /^(\s*-?\s*["']?[\w.-]*(?:api[_-]?key|apikey|secret|passw(?:or)?d|passphrase|token|access[_-]?key|private[_-]?key|credential|authorization)[\w.-]*["']?\s*[:=]\s*)(.+)$/i;
const PLAIN_VALUE = /^(?:[-+]?\d[\d_.eE+-]*|true|false|null|none|~|""|''|\[\]|\{\}|\|[-+]?|>[-+]?)\s*(?:#.*)?$/i;

function redactLine(line: string): string {
  const scrubbed = redactText(line);
  const match = SECRET_SETTING.exec(scrubbed);
  if (!match) return scrubbed;
  const value = match[2]!.trim();
  if (PLAIN_VALUE.test(value) || value.includes(REDACTED)) return scrubbed;
  return `${match[1]!}${REDACTED}`;
}

/**
 * What a kept run may hold of the user's text (the synced YAML, the scripts): the app's redactor (known secret
 * values, credential shapes) line by line, and the values of settings named like credentials.
 */
export function redactRunText(text: string): string {
  return text.split('\n').map(redactLine).join('\n');
}
