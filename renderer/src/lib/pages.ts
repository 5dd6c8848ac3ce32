import type { Component } from 'svelte';
import type { ExposedApi } from '../../../electron/shared/api';
import { registerChunkLoader } from './chunks';
import { hasTopics, loadTopics, type MessageKey, type Topic } from './i18n';
import { pageInAddress } from './page-in-url';
import type { SettingsState } from './state/settings.svelte';
import type { SwarmStatuses } from './state/swarm-statuses.svelte';

/** A page's id; one of the `id`s in `pages` below. */
export type Page = string;

/**
 * What every page receives. Pages build their own state modules from `api` (components below them
 * never call it); the app-wide states are shared so the status bar and the pages never disagree.
 */
export interface PageContext {
  api: ExposedApi;
  statuses: SwarmStatuses;
  settings: SettingsState;
  navigate: (page: Page) => void;
}

export type PageComponent = Component<{ context: PageContext }>;

export interface PageEntry {
  id: Page;
  label: MessageKey;
  /**
   * The string topics the page's code shows besides the shell's (lib/i18n/topics.ts), fetched with its code:
   * the page renders only once both are here (test/unit/build/i18n-topics.spec.ts checks the list against
   * the keys the page's code names).
   */
  topics: readonly Topic[];
  /** The page's code is a chunk of its own, fetched when the page is first shown (the first page loads with the app). */
  load: () => Promise<{ default: PageComponent }>;
}

/**
 * The app's pages, in navigation order: App.svelte and NavBar.svelte both render from this table,
 * so a new page is one row here. Plain state instead of a router: there are no deep links.
 */
export const pages: readonly PageEntry[] = [
  { id: 'fleet', label: 'nav.fleet', topics: ['fleet', 'fleet-alerts', 'dryrun'], load: () => import('../pages/FleetPage.svelte') },
  { id: 'wizard', label: 'nav.wizard', topics: ['wizard', 'vault', 'dryrun'], load: () => import('../pages/WizardPage.svelte') },
  { id: 'servers', label: 'nav.servers', topics: ['profiles', 'doctor', 'dryrun'], load: () => import('../pages/ServersPage.svelte') },
  { id: 'jobs', label: 'nav.jobs', topics: ['jobs', 'workers', 'worker-notes', 'workers-add', 'dryrun'], load: () => import('../pages/JobsPage.svelte') },
  { id: 'runs', label: 'nav.runs', topics: ['runs', 'dryrun'], load: () => import('../pages/RunsPage.svelte') },
  { id: 'settings', label: 'nav.settings', topics: ['updates', 'vault', 'dryrun'], load: () => import('../pages/SettingsPage.svelte') },
];

/** The app opens on Servers (what most users check first: is my server up?); the Wizard is first in the navigation. */
export const FIRST_PAGE: Page = 'servers';

export function findPage(id: Page): PageEntry | undefined {
  return pages.find((entry) => entry.id === id);
}

/**
 * The page to fetch before the first paint: the one in the address (Electron opens the window at the last
 * page, `#page=…`, remembered by the shell's store). With none, the page is chosen once the startup facts are
 * in (lib/landing.ts: a new user gets the wizard), so nothing is fetched on a guess.
 */
export function pageToOpen(): Page | null {
  const named = pageInAddress();
  return named !== null && findPage(named) ? named : null;
}

const loaded = new Map<Page, PageComponent>();
const loading = new Map<Page, Promise<PageComponent>>();

/** A page's component when its chunk and its strings have arrived, so a page seen before shows at once. */
export function loadedPage(id: Page): PageComponent | undefined {
  const entry = findPage(id);
  return entry && hasTopics(entry.topics) ? loaded.get(id) : undefined;
}

/**
 * Fetches a page's chunk and its string topics once (in the language shown; a language switch brings them in
 * the new one before it shows); a failed fetch is tried again on the next call.
 */
export function loadPage(id: Page): Promise<PageComponent> {
  const entry = findPage(id);
  if (!entry) return Promise.reject(new Error(`no page "${id}"`));
  const cached = loaded.get(id);
  // A page seen before: its strings may still be on their way in a language being switched to.
  if (cached) return loadTopics(entry.topics).then(() => cached);
  let pending = loading.get(id);
  if (!pending) {
    pending = Promise.all([entry.load(), loadTopics(entry.topics)]).then(
      ([module]) => {
        loaded.set(id, module.default);
        return module.default;
      },
      (error: unknown) => {
        loading.delete(id);
        throw error;
      },
    );
    loading.set(id, pending);
  }
  return pending;
}

/** Every page's chunk (tests render pages without waiting for each one's first fetch: lib/chunks.ts). */
export async function loadAllPages(): Promise<void> {
  await Promise.all(pages.map((entry) => loadPage(entry.id)));
}
registerChunkLoader(loadAllPages);
