import type { Component } from 'svelte';
import type { ExposedApi } from '../../../electron/shared/api';
import FleetPage from '../pages/FleetPage.svelte';
import JobsPage from '../pages/JobsPage.svelte';
import ServersPage from '../pages/ServersPage.svelte';
import SettingsPage from '../pages/SettingsPage.svelte';
import WizardPage from '../pages/WizardPage.svelte';
import type { MessageKey } from './i18n';
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

export interface PageEntry {
  id: Page;
  label: MessageKey;
  component: Component<{ context: PageContext }>;
}

/**
 * The app's pages, in navigation order: App.svelte and NavBar.svelte both render from this table,
 * so a new page is one row here. Plain state instead of a router: there are no deep links.
 */
export const pages: readonly PageEntry[] = [
  { id: 'fleet', label: 'nav.fleet', component: FleetPage },
  { id: 'wizard', label: 'nav.wizard', component: WizardPage },
  { id: 'servers', label: 'nav.servers', component: ServersPage },
  { id: 'jobs', label: 'nav.jobs', component: JobsPage },
  { id: 'settings', label: 'nav.settings', component: SettingsPage },
];

/** The app opens on Servers (what most users check first: is my server up?); the Wizard is first in the navigation. */
export const FIRST_PAGE: Page = 'servers';

export function findPage(id: Page): PageEntry | undefined {
  return pages.find((entry) => entry.id === id);
}
