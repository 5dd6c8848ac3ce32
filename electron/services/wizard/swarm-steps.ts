import { AppError, isAppError } from '../../shared/errors';
import type { SwarmChoiceData, WizardStateData } from '../../shared/schemas-wizard';
import type { Handlers } from '../ipc/handlers';
import type { ProfileStore } from '../profiles/profile-store';
import { DEFAULT_SWARM_WAITS, startSwarm, type SwarmProgress, type SwarmWaits } from './swarm-starter';
import type { WizardService } from './wizard-service';
import { clearStale } from './wizard-steps';

/**
 * Step 3, the swarm server: where it runs (the dry run or a profile) and its start until
 * `/health` answers. A change of choice clears the old one's status and makes the debug episode
 * and training that ran against it out of date.
 */
export class SwarmSteps {
  private swarmStart: Promise<WizardStateData> | null = null;

  constructor(
    private readonly wizard: WizardService,
    private readonly options: { handlers: () => Handlers; profiles: ProfileStore; swarmWaits?: SwarmWaits },
  ) {}

  async chooseSwarm(choice: SwarmChoiceData): Promise<WizardStateData> {
    this.wizard.locked('swarm');
    if (choice.kind === 'profile') this.options.profiles.get(choice.profileId);
    return this.wizard.change((f) => {
      if (f.swarm && sameChoice(f.swarm.choice, choice)) return { ...f, current: 'swarm' };
      // The debug episode ran against the other server: run it again against this one.
      const base = this.wizard.stale(f, ['debug', 'train']);
      return clearStale(
        { ...base, current: 'swarm', swarm: { choice, phase: 'idle', detail: null, say: null, engineId: null, containerId: null, url: null }, swarmReadyAt: null, goneProfile: null },
        'swarm',
      );
    });
  }

  /** One start at a time: a second press while one runs waits for the same outcome. */
  startSwarm(options: { restartDryRun?: boolean } = {}): Promise<WizardStateData> {
    this.swarmStart ??= this.runSwarmStart(options).finally(() => {
      this.swarmStart = null;
    });
    return this.swarmStart;
  }

  private async runSwarmStart(options: { restartDryRun?: boolean }): Promise<WizardStateData> {
    const facts = this.wizard.locked('swarm');
    const choice = facts.swarm?.choice;
    const llm = facts.llm;
    if (!choice || !llm) throw new AppError('VALIDATION_FAILED', 'Choose where the swarm server runs (the dry run or a profile) first.');
    const progress = async (patch: SwarmProgress) => {
      await this.wizard.change((f) => (f.swarm && sameChoice(f.swarm.choice, choice) ? { ...f, swarm: { ...f.swarm, ...patch } } : f));
    };
    await this.wizard.change((f) => ({
      ...f,
      current: 'swarm',
      swarmReadyAt: null,
      swarm: f.swarm ? { ...f.swarm, phase: 'starting', detail: 'starting', say: { key: 'starting', params: {} }, url: null } : f.swarm,
    }));
    try {
      const target = await startSwarm(
        choice,
        llm,
        { handlers: this.options.handlers, profiles: this.options.profiles, progress, waits: this.options.swarmWaits ?? DEFAULT_SWARM_WAITS },
        options,
      );
      return await this.wizard.change((f) => {
        if (!f.swarm || !sameChoice(f.swarm.choice, choice)) return f;
        return clearStale({ ...f, swarm: { ...f.swarm, ...target, phase: 'ready', detail: null, say: null }, swarmReadyAt: new Date().toISOString() }, 'swarm');
      });
    } catch (error) {
      // Another LLM on the running dry run is a question for the user (the step offers "Restart"),
      // said once by the step: nothing started or failed.
      if (isAppError(error) && error.params?.holder === 'wizard-other-llm') {
        await progress({ phase: 'idle', detail: null, say: null }).catch(() => undefined);
        throw error;
      }
      const detail = isAppError(error) ? error.message : 'The start failed unexpectedly; the app log has the details.';
      // The error's own params (a port, a holder) word its title too.
      const say = { key: 'failed' as const, params: isAppError(error) ? { ...error.params, code: error.code } : { code: 'INTERNAL' } };
      await progress({ phase: 'failed', detail, say }).catch(() => undefined);
      throw error;
    }
  }
}

export function sameChoice(a: SwarmChoiceData, b: SwarmChoiceData): boolean {
  return a.kind === b.kind && (a.kind === 'dry-run' || (b.kind === 'profile' && a.profileId === b.profileId));
}
