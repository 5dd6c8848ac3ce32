/**
 * Upstream's janitor thread (swarm_server.py; reference §1.5, appendix point 10): every 10 s it returns claimed
 * episodes idle past their discard_episode_timeout to the pool and forgets clients idle past
 * CLIENT_ACTIVE_TIMEOUT (600 s). Both periods are options so tests can shorten them.
 */
import type { SwarmState } from './engine-state';
import type { Log } from './http-framework';

export function startJanitor(state: SwarmState, intervalMs: number, log: Log): () => void {
  const timer = setInterval(() => {
    try {
      state.janitor();
    } catch (error) {
      // A failing pass must not stop the next one (upstream's thread catches and logs too).
      log('error', `janitor pass failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
