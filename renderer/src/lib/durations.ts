import type { SwarmContainer } from '../../../electron/shared/schemas';
import { t, type MessageKey } from './i18n';

/** A translatable text; a parameter may itself be a message ("Up {duration}"). `say()` makes words of it. */
export interface Message {
  key: MessageKey;
  params?: Record<string, string | number | Message>;
}

export const msg = (key: MessageKey, params?: Message['params']): Message => (params ? { key, params } : { key });

/** The words of a message in the current language, nested messages first. */
export function say(message: Message): string {
  if (!message.params) return t(message.key);
  const params = Object.fromEntries(
    Object.entries(message.params).map(([name, value]) => [name, typeof value === 'object' ? say(value) : value]),
  );
  return t(message.key, params);
}

/**
 * A duration in Docker's words (go-units HumanDuration, as `docker ps` and the backend's
 * `humanDuration` write it), so the row's ticking text matches what start, stop and list return.
 * A test compares the English output with the backend's for many durations.
 */
export function humanDuration(ms: number): Message {
  const seconds = Math.floor(Math.max(0, ms) / 1000);
  if (seconds < 1) return msg('duration.lessThanSecond');
  if (seconds === 1) return msg('duration.second');
  if (seconds < 60) return msg('duration.seconds', { n: seconds });
  const minutes = Math.floor(seconds / 60);
  if (minutes === 1) return msg('duration.aboutMinute');
  if (minutes < 60) return msg('duration.minutes', { n: minutes });
  const hours = Math.round(minutes / 60);
  if (hours === 1) return msg('duration.aboutHour');
  if (hours < 48) return msg('duration.hours', { n: hours });
  if (hours < 24 * 7 * 2) return msg('duration.days', { n: Math.floor(hours / 24) });
  if (hours < 24 * 30 * 2) return msg('duration.weeks', { n: Math.floor(hours / 24 / 7) });
  if (hours < 24 * 365 * 2) return msg('duration.months', { n: Math.floor(hours / 24 / 30) });
  return msg('duration.years', { n: Math.floor(hours / 24 / 365) });
}

/**
 * A running clock for things that tick every second ("booting for 1 min 12 s"): unlike Docker's
 * words it moves visibly while the user waits.
 */
export function elapsed(ms: number): Message {
  const total = Math.floor(Math.max(0, ms) / 1000);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  if (h > 0) return msg('elapsed.hm', { h, m });
  if (m > 0) return msg('elapsed.ms', { m, s });
  return msg('elapsed.s', { s });
}

/** Milliseconds from an ISO time to `now`, never negative (clocks of two machines may disagree a little). */
export function since(iso: string | null, now: number): number | null {
  if (!iso) return null;
  const at = Date.parse(iso);
  return Number.isNaN(at) ? null : Math.max(0, now - at);
}

/**
 * The container's state text ("Up 3 seconds", "Exited (143) 3 seconds ago"), recomputed from its
 * timestamps at `now` so it advances while the page is open; in English the same words as the
 * backend's `containerStatusText` (one wording for start, stop, list and the row).
 */
export function containerText(
  c: Pick<SwarmContainer, 'state' | 'startedAt' | 'finishedAt' | 'exitCode'>,
  now: number,
): Message {
  const up = since(c.startedAt, now);
  const down = since(c.finishedAt, now);
  const code = c.exitCode ?? 0;
  switch (c.state) {
    case 'running':
      return up === null ? msg('containerText.upNoTime') : msg('containerText.up', { duration: humanDuration(up) });
    case 'paused':
      return up === null ? msg('containerText.pausedNoTime') : msg('containerText.paused', { duration: humanDuration(up) });
    case 'restarting':
      return down === null ? msg('containerText.restartingNoTime') : msg('containerText.restarting', { code, duration: humanDuration(down) });
    case 'exited':
      return down === null ? msg('containerText.exitedNoTime', { code }) : msg('containerText.exited', { code, duration: humanDuration(down) });
    case 'created':
      return msg('containerText.created');
    case 'removing':
      return msg('containerText.removing');
    case 'dead':
      return msg('containerText.dead');
    default:
      return msg('containerText.unknown');
  }
}
