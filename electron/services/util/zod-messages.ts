import type { z } from 'zod';

/** Caps on what a validation message echoes back: the fields named come from the caller. */
const MAX_ISSUES = 5;
const MAX_PATH_CHARS = 80;
const MAX_ISSUE_CHARS = 200;

function cap(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/**
 * Formats zod issues as one line naming each bad field, e.g. `port: port must be 65535 or lower`.
 * Echoes are capped (a few issues, short paths and messages): an unknown key of 900 KB must not
 * come back as a 900 KB reply, nor fill the log.
 */
export function describeZodError(error: z.ZodError): string {
  const shown = error.issues.slice(0, MAX_ISSUES).map((issue) => {
    const path = cap(issue.path.map((part) => cap(String(part), MAX_PATH_CHARS)).join('.'), MAX_PATH_CHARS * 2);
    return cap(path ? `${path}: ${issue.message}` : issue.message, MAX_ISSUE_CHARS);
  });
  const more = error.issues.length - shown.length;
  return more > 0 ? `${shown.join('; ')}; and ${more} more` : shown.join('; ');
}
