import { getContext, setContext } from 'svelte';
import type { ExposedApi } from '../../../../electron/shared/api';
import type { AppErrorShape } from '../../../../electron/shared/errors';

/**
 * "Stop the dry run" offered where a check or a Start found the app's own dry run holding a port (the error banner,
 * the doctor). One per place it is offered (a banner shown later starts afresh); made by a factory that is handed
 * down by context, because those places sit deep in cards that do not carry the API.
 */
export class DryRunPortAction {
  state = $state<'idle' | 'stopping' | 'stopped'>('idle');
  error = $state<AppErrorShape | null>(null);

  constructor(private readonly api: ExposedApi) {}

  async stop(): Promise<void> {
    if (this.state === 'stopping') return;
    this.state = 'stopping';
    this.error = null;
    const result = await this.api.dryrun.stop({});
    // DRY_RUN_STATE: it was already stopped (in another window, or by hand): the port is free all the same.
    if (result.ok || result.error.code === 'DRY_RUN_STATE') {
      this.state = 'stopped';
      return;
    }
    this.error = result.error;
    this.state = 'idle';
  }
}

export const DRY_RUN_PORT_ACTION_KEY = Symbol('dry-run-port-action');

export type DryRunPortActionFactory = () => DryRunPortAction;

/** Called once by App.svelte with the window's API. */
export function provideDryRunPortAction(api: ExposedApi): void {
  setContext<DryRunPortActionFactory>(DRY_RUN_PORT_ACTION_KEY, () => new DryRunPortAction(api));
}

/** A fresh action for the calling component, or null where none was provided (a component rendered alone in a test). */
export function dryRunPortAction(): DryRunPortAction | null {
  return getContext<DryRunPortActionFactory | undefined>(DRY_RUN_PORT_ACTION_KEY)?.() ?? null;
}
