import type Docker from 'dockerode';
import type { ContainerState } from '../../shared/schemas';
import { containerStatusText, type ContainerSummary } from './container-engine';

// Docker's inspect answer read into the engine-neutral summary, and its log frames (split from docker-api-engine.ts).

const KNOWN_STATES = new Set<ContainerState>(['created', 'running', 'paused', 'restarting', 'removing', 'exited', 'dead']);

/**
 * Docker's status words, and the ones Podman's compat API passes through from libpod: `configured` and
 * `initialized` (created, never started), `stopping` (its process ended or is ending, cleanup runs: seen
 * for a moment after a crash on rootless Podman) and `stopped`. Anything else goes by `Running`.
 */
function toState(state: Docker.ContainerInspectInfo['State']): ContainerState {
  const value = state.Status;
  if (value && KNOWN_STATES.has(value as ContainerState)) return value as ContainerState;
  if (value === 'configured' || value === 'initialized') return 'created';
  if (state.Running) return 'running';
  if (value === 'stopping' || value === 'stopped') return 'exited';
  return 'unknown';
}

/** Docker writes "0001-01-01T00:00:00Z" for a time that never happened. */
function dockerTime(value: string | undefined): string | null {
  if (!value || value.startsWith('0001-')) return null;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}

/** The inspect fields we use, mapped to the engine-neutral summary with a status text of now. */
export function summaryFromInspect(info: Docker.ContainerInspectInfo): ContainerSummary {
  const state = toState(info.State);
  const startedAt = dockerTime(info.State.StartedAt);
  const finishedAt = dockerTime(info.State.FinishedAt);
  // A created-but-never-started container has ExitCode 0 that means nothing.
  const exitCode = info.State.Running || startedAt === null ? null : info.State.ExitCode;
  const summary: ContainerSummary = {
    id: info.Id,
    name: info.Name.replace(/^\//, ''),
    image: info.Config.Image,
    state,
    statusText: '',
    labels: info.Config.Labels ?? {},
    createdAt: dockerTime(info.Created) ?? info.Created,
    startedAt,
    finishedAt,
    exitCode,
    oomKilled: info.State.OOMKilled === true,
  };
  summary.statusText = containerStatusText(summary);
  return summary;
}

/**
 * Docker multiplexes stdout and stderr of a non-TTY container into frames with an 8-byte header
 * (stream type, 3 zero bytes, big-endian length). A buffer without such headers is returned as is.
 */
export function demuxLogBuffer(buffer: Buffer): string {
  const parts: Buffer[] = [];
  let offset = 0;
  while (offset + 8 <= buffer.length) {
    const stream = buffer[offset];
    if ((stream !== 0 && stream !== 1 && stream !== 2) || buffer[offset + 1] !== 0 || buffer[offset + 2] !== 0 || buffer[offset + 3] !== 0) {
      return buffer.toString('utf8');
    }
    const size = buffer.readUInt32BE(offset + 4);
    parts.push(buffer.subarray(offset + 8, offset + 8 + size));
    offset += 8 + size;
  }
  return Buffer.concat(parts).toString('utf8');
}
