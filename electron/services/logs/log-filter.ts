import { AppError } from '../../shared/errors';
import type { LogFilter } from '../../shared/schemas-profiles';

export interface LinePredicate {
  /** Identifies the filter, for its cache of matching lines. */
  key: string;
  /** True when the filter asks nothing of the text (stream only, or nothing at all). */
  textFree: boolean;
  stream: LogFilter['stream'];
  matchesText(text: string): boolean;
}

/**
 * The test a line must pass: a case-insensitive substring, or a regular expression (invalid ones
 * are refused with the parser's reason), and a stream.
 */
export function linePredicate(filter: LogFilter): LinePredicate {
  const text = filter.text;
  const key = `${filter.stream}\u0000${filter.regex ? 'r' : 's'}\u0000${text}`;
  if (text === '') return { key, textFree: true, stream: filter.stream, matchesText: () => true };
  if (filter.regex) {
    let pattern: RegExp;
    try {
      pattern = new RegExp(text, 'i');
    } catch (error) {
      throw new AppError('VALIDATION_FAILED', `The search is not a valid regular expression: ${(error as Error).message}. Fix it, or switch the regex option off to search for the text as it is.`);
    }
    return { key, textFree: false, stream: filter.stream, matchesText: (line) => pattern.test(line) };
  }
  const needle = text.toLowerCase();
  return { key, textFree: false, stream: filter.stream, matchesText: (line) => line.toLowerCase().includes(needle) };
}
