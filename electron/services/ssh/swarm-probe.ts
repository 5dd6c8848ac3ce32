import type { TunnelView } from '../../shared/schemas-servers';
import { SwarmHttpClient } from '../swarm/swarm-http-client';
import type { SwarmReading } from '../swarm/watch-types';

export type ProbeResult = NonNullable<TunnelView['probe']>;

/** Short: a probe that hangs says more about the tunnel than a slow answer would. */
export const PROBE_TIMEOUT_MS = 2000;

/**
 * The swarm monitor polls the same URL through the same tunnel (at least every 4 s while no window
 * shows the app): a reading of its that is younger than this is the probe's answer, not asked again.
 */
export const READING_STANDS_FOR_PROBE_MS = 10_000;

/**
 * The monitor's last poll of a tunnel's URL, when it answered recently and after `notBefore` (the
 * current SSH connection came up: an answer through an older one proves nothing about this one).
 * A failed poll is not taken: the probe asks itself, so the link is judged on a fresh word.
 */
export function probeFromReading(reading: SwarmReading | null, now = Date.now(), notBefore = 0): ProbeResult | null {
  if (!reading?.engine || reading.at < notBefore || now - reading.at > READING_STANDS_FOR_PROBE_MS) return null;
  return { ok: true, engineStatus: reading.engine.engineStatus, error: null, latencyMs: reading.latencyMs, checkedAt: new Date(reading.at).toISOString() };
}

/**
 * Proves the tunnel end to end: `GET /get_engine_status` through it, as the monitor does. A process
 * or a listener being alive proves nothing (forwards that look up but carry no traffic are the
 * classic failure of SSH tunnels).
 */
export async function probeSwarm(url: string, timeoutMs = PROBE_TIMEOUT_MS): Promise<ProbeResult> {
  const started = performance.now();
  const checkedAt = (): string => new Date().toISOString();
  try {
    const reading = await new SwarmHttpClient(url, timeoutMs).engineStatus();
    return { ok: true, engineStatus: reading.engineStatus, error: null, latencyMs: Math.round((performance.now() - started) * 10) / 10, checkedAt: checkedAt() };
  } catch (error) {
    return { ok: false, engineStatus: null, error: error instanceof Error ? error.message : String(error), latencyMs: null, checkedAt: checkedAt() };
  }
}
