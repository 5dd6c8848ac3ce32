import type { TunnelView } from '../../shared/schemas-servers';
import { SwarmHttpClient } from '../swarm/swarm-http-client';

export type ProbeResult = NonNullable<TunnelView['probe']>;

/** Short: a probe that hangs says more about the tunnel than a slow answer would. */
export const PROBE_TIMEOUT_MS = 2000;

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
