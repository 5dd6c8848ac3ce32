import type { ContainerEvent } from './container-engine';
import { parseDockerEvent, type EventDialect } from './docker-logs';

/**
 * Podman 4.3's compat events for a container stopped and removed: create, init, start, die,
 * cleanup (twice), remove; never `stop` or `destroy`. Docker's: create, start, kill, die, stop,
 * destroy. What the app acts on, renamed to Docker's words so the monitor needs no Podman branch:
 * - `remove` is Docker's `destroy` (the container is gone);
 * - `cleanup` is sent once the container's processes and mounts are released after it exited: the
 *   point at which Docker says `stop` (not running any more). Docker sends `stop` only for a
 *   requested stop; listeners treat `stop` as "check whether it still runs", so one after a crash
 *   is harmless, and twice is fine (events may repeat).
 */
const PODMAN_ACTION_NAMES: Readonly<Record<string, ContainerEvent['action']>> = {
  start: 'start',
  die: 'die',
  oom: 'oom',
  stop: 'stop',
  cleanup: 'stop',
  remove: 'destroy',
};

/** One event of Podman's compat stream in the app's (Docker's) words; null for events the app ignores. */
export function parsePodmanEvent(raw: unknown): ContainerEvent | null {
  if (!raw || typeof raw !== 'object') return null;
  const event = raw as { Action?: string; status?: string };
  const action = PODMAN_ACTION_NAMES[event.Action ?? event.status ?? ''];
  if (!action) return null;
  return parseDockerEvent({ ...event, Action: action, status: action });
}

export const PODMAN_EVENTS: EventDialect = { actions: Object.keys(PODMAN_ACTION_NAMES), parse: parsePodmanEvent };
