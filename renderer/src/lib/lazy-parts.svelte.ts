/**
 * Parts of a page that are not on screen when it opens (dialogs, a running dry run's monitor) are
 * chunks of their own, fetched the first time they show: the first paint then fetches and parses
 * only what it draws. A usage site reads `Part.get()` where it would have named the component:
 *
 *     {#if dialog}
 *       {@const Dialog = ServerDialogPart.get()}
 *       {#if Dialog}<Dialog … />{/if}
 *     {/if}
 *
 * `get()` answers at once once the chunk is here (a second opening shows at once) and otherwise
 * starts the fetch; its arrival re-renders the usage site. A part's string topics (lib/i18n/topics.ts) besides
 * the shell's come with its code: `get()` answers only once both are here (test/unit/build/i18n-topics.spec.ts
 * checks each row's topics against the keys its code names). A new part is one row at the bottom.
 */
import type { Component } from 'svelte';
import { registerChunkLoader } from './chunks';
import type { WizardStepName } from '../../../electron/shared/schemas-wizard';
import { loadTopics, type Topic } from './i18n';
import type { PageContext } from './pages';
import type { WizardStore } from './state/wizard.svelte';

// Svelte's own component type: any props, as the usage site checks them against the real component.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyComponent = Component<any>;

/** How long after a failed fetch a shown part asks again (nothing else would re-render it: it would stay missing). */
const RETRY_MS = 3000;

export class LazyPart<C extends AnyComponent> {
  private component = $state<C | null>(null);
  private pending: Promise<C> | null = null;
  /** Bumped a while after a failed fetch (the backend was away): whoever shows the part asks again then. */
  private retries = $state(0);

  constructor(
    private readonly loader: () => Promise<{ default: C }>,
    private readonly topics: readonly Topic[] = [],
  ) {
    everyPart.push(this as unknown as LazyPart<AnyComponent>);
  }

  /** The component, or null while its chunk is on its way (the fetch starts on the first call). */
  get(): C | null {
    void this.retries;
    if (this.component === null) {
      void this.load().catch((error: unknown) => {
        console.error('a part of the page did not load', error);
        setTimeout(() => (this.retries += 1), RETRY_MS);
      });
    }
    return this.component;
  }

  /** Fetches the chunk once; a failed fetch is tried again on the next call. */
  load(): Promise<C> {
    this.pending ??= Promise.all([this.loader(), loadTopics(this.topics)]).then(
      ([module]) => {
        this.component = module.default;
        return module.default;
      },
      (error: unknown) => {
        this.pending = null;
        throw error;
      },
    );
    return this.pending;
  }
}

const everyPart: LazyPart<AnyComponent>[] = [];

type WizardStepComponent = Component<{ context: PageContext; wizard: WizardStore }>;

/** Every part's chunk (tests open dialogs without waiting for each one's first fetch: lib/chunks.ts). */
export async function loadAllParts(): Promise<void> {
  await Promise.all(everyPart.map((part) => part.load()));
}
registerChunkLoader(loadAllParts);

export const ServerDialogPart = new LazyPart(() => import('../pages/servers/ServerDialog.svelte'), ['vault', 'dryrun']);
export const ProfileDialogPart = new LazyPart(() => import('../pages/servers/profiles/ProfileDialog.svelte'), ['profiles', 'fleet', 'vault', 'dryrun']);
export const DryRunMonitorPart = new LazyPart(() => import('../pages/servers/dryrun/DryRunMonitor.svelte'), ['dryrun', 'training']);
export const DryRunTracesPart = new LazyPart(() => import('../pages/servers/dryrun/DryRunTraces.svelte'), ['dryrun']);
export const TrainingDashboardPart = new LazyPart(() => import('../pages/servers/training/TrainingDashboard.svelte'), ['training', 'dryrun']);
export const LogsPanelPart = new LazyPart(() => import('../pages/servers/logs/LogsPanel.svelte'), ['logs']);
export const VaultUnlockPromptPart = new LazyPart(() => import('../components/VaultUnlockPrompt.svelte'), ['vault', 'dryrun']);
export const DryRunCardPart = new LazyPart(() => import('../pages/servers/dryrun/DryRunCard.svelte'), ['dryrun', 'vault']);
export const ServerCardPart = new LazyPart(() => import('../pages/servers/ServerCard.svelte'), ['dryrun']);
export const DiagnosticsViewPart = new LazyPart(() => import('../pages/servers/DiagnosticsView.svelte'), ['diagnostics', 'doctor']);
export const HostKeyDialogPart = new LazyPart(() => import('../pages/servers/HostKeyDialog.svelte'), ['dryrun']);
export const PromptDialogPart = new LazyPart(() => import('../pages/servers/PromptDialog.svelte'), []);
export const ProfileStartDialogPart = new LazyPart(() => import('../pages/servers/profiles/ProfileStartDialog.svelte'), ['profiles', 'dryrun']);
export const ProfileCommandDialogPart = new LazyPart(() => import('../pages/servers/profiles/ProfileCommandDialog.svelte'), ['profiles']);
export const WizardStepProjectPart = new LazyPart(() => import('../pages/wizard/StepProject.svelte'), ['wizard', 'jobs', 'dryrun']);
export const WizardStepCodePart = new LazyPart(() => import('../pages/wizard/StepCode.svelte'), ['wizard', 'dryrun']);
export const WizardStepSwarmPart = new LazyPart(() => import('../pages/wizard/StepSwarm.svelte'), ['wizard-run', 'dryrun']);
export const WizardStepDebugPart = new LazyPart(() => import('../pages/wizard/StepDebug.svelte'), ['wizard-run', 'jobs', 'dryrun']);
export const WizardStepTrainPart = new LazyPart(() => import('../pages/wizard/StepTrain.svelte'), ['wizard-run', 'training', 'jobs', 'workers', 'worker-notes', 'workers-add', 'dryrun']);

/** The wizard's steps after the first (the first comes with the page: a new user lands on it). */
export const WizardStepParts: Record<Exclude<WizardStepName, 'llm'>, LazyPart<WizardStepComponent>> = {
  project: WizardStepProjectPart,
  code: WizardStepCodePart,
  swarm: WizardStepSwarmPart,
  debug: WizardStepDebugPart,
  train: WizardStepTrainPart,
};
