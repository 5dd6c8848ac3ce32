import type { ExposedApi } from '../../../../electron/shared/api';
import { swarmUrlForPort } from '../../../../electron/shared/defaults';
import type { AppErrorShape } from '../../../../electron/shared/errors';
import type { SwarmStartRequest } from '../../../../electron/shared/schemas';
import type { EngineState } from './engine.svelte';
import type { SettingsState } from './settings.svelte';

/** What the start form sends: everything but the engine, which this state already knows. */
export type StartValues = Omit<SwarmStartRequest, 'engineId'>;

/**
 * Starting a swarm server from the Servers page. A successful start saves the values it used as
 * the swarm defaults in settings, so the form opens with them next time. An engine problem goes
 * to the engine card (`EngineState.absorb`) instead of a second banner here.
 */
export class SwarmStartState {
  starting = $state(false);
  error = $state<AppErrorShape | null>(null);
  /** Port of the failed request, for error titles that name it. */
  errorPort = $state<number | null>(null);
  /** Set when the failure is an engine problem now shown on the engine card. */
  engineProblem = $state(false);
  started = $state<{ name: string; url: string } | null>(null);

  constructor(
    private readonly api: ExposedApi,
    private readonly engine: EngineState,
    private readonly settings: SettingsState,
  ) {}

  get engineId(): string {
    return this.engine.engineId;
  }

  async start(values: StartValues): Promise<boolean> {
    if (this.starting) return false;
    this.starting = true;
    this.error = null;
    this.engineProblem = false;
    this.started = null;
    const result = await this.api.swarm.start({ engineId: this.engine.engineId, ...values });
    this.starting = false;
    if (!result.ok) {
      if (this.engine.absorb(result.error)) this.engineProblem = true;
      else {
        this.error = result.error;
        this.errorPort = values.port;
      }
      return false;
    }
    this.started = { name: result.value.name, url: swarmUrlForPort(result.value.port) };
    // Remembering is a convenience: a failed save must not turn a successful start into an error.
    await this.settings.update({ swarm: values });
    return true;
  }

  dismissError(): void {
    this.error = null;
  }
}
