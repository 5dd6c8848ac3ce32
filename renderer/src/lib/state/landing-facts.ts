import type { ExposedApi } from '../../../../electron/shared/api';
import type { LandingFacts } from '../landing';
import type { Page } from '../pages';

/**
 * Reads the startup facts `landingPage` decides on (servers, profiles, wizard progress) in one go.
 * A call that fails leaves its fact unknown (null), which never counts as "new user".
 */
export async function readLandingFacts(api: ExposedApi, pageAtLoad: Page | null): Promise<LandingFacts> {
  if (pageAtLoad !== null) return { pageAtLoad, servers: null, profiles: null, wizardStarted: null, swarmServers: null };
  const settle = <T,>(call: () => Promise<T>): Promise<T | null> => call().catch(() => null);
  const [servers, profiles, wizard, states] = await Promise.all([
    settle(() => api.servers.list()),
    settle(() => api.profiles.list()),
    settle(() => api.wizard.state({})),
    settle(() => api.fleet.states()),
  ]);
  return {
    pageAtLoad,
    servers: servers?.ok ? servers.value.length : null,
    profiles: profiles?.ok ? profiles.value.length : null,
    wizardStarted: wizard?.ok ? wizard.value.current !== 'llm' || wizard.value.steps.some((s) => s.status !== 'todo') : null,
    swarmServers: states?.ok ? states.value.length : null,
  };
}
