import { render, screen, waitFor } from '@testing-library/svelte';
import { beforeEach, describe, expect, it } from 'vitest';
import { landingPage, type LandingFacts } from '../../renderer/src/lib/landing';
import { setApiForTests } from '../../renderer/src/lib/api';
import { FakeApi, makeProfileView, makeServerView } from './fake-api';

const NEW_USER: LandingFacts = { pageAtLoad: null, servers: 0, profiles: 0, wizardStarted: false, swarmServers: 0 };

describe('where the app opens (landingPage)', () => {
  it('sends a new user (no server, no profile, no wizard progress) to the wizard', () => {
    expect(landingPage(NEW_USER)).toBe('wizard');
  });

  it('opens everyone else on Servers: a server, a profile or wizard progress is enough', () => {
    expect(landingPage({ ...NEW_USER, servers: 1 })).toBe('servers');
    expect(landingPage({ ...NEW_USER, profiles: 2 })).toBe('servers');
    expect(landingPage({ ...NEW_USER, wizardStarted: true })).toBe('servers');
  });

  it('never takes an unknown fact (a failed read) for a new user', () => {
    expect(landingPage({ ...NEW_USER, servers: null })).toBe('servers');
    expect(landingPage({ ...NEW_USER, profiles: null })).toBe('servers');
    expect(landingPage({ ...NEW_USER, wizardStarted: null })).toBe('servers');
  });

  it('keeps the page the address names (a reload, the page Electron reopens) before any other rule', () => {
    expect(landingPage({ ...NEW_USER, pageAtLoad: 'settings' })).toBe('settings');
    expect(landingPage({ pageAtLoad: 'jobs', servers: 3, profiles: 1, wizardStarted: true, swarmServers: 2 })).toBe('jobs');
  });

  it('opens a returning user with a swarm server on the fleet home (issue 33), else on Servers', () => {
    expect(landingPage({ ...NEW_USER, profiles: 1, swarmServers: 1 })).toBe('fleet');
    expect(landingPage({ ...NEW_USER, swarmServers: 1 })).toBe('fleet');
    expect(landingPage({ ...NEW_USER, profiles: 1, swarmServers: null })).toBe('servers');
    expect(landingPage({ ...NEW_USER, pageAtLoad: 'settings', swarmServers: 4 })).toBe('settings');
  });
});

describe('the app at first launch (no page in the address)', () => {
  let api: FakeApi;

  beforeEach(() => {
    api = new FakeApi();
    setApiForTests(api);
  });

  // test/renderer/setup.ts opens every App as a returning user (#page=servers); this file clears
  // that before App (and page-in-url.ts, which reads the address once) is loaded.
  async function renderAtBareAddress(): Promise<void> {
    window.location.hash = '';
    const { default: App } = await import('../../renderer/src/App.svelte');
    render(App);
  }

  it('lands a new user on the wizard, and shows the wizard in the navigation', async () => {
    await renderAtBareAddress();
    await waitFor(() => expect(screen.getByTestId('nav-wizard').getAttribute('aria-current')).toBe('page'));
    expect(window.location.hash).toContain('page=wizard');
  }, 30_000);

  it('opens on Servers once a server exists', async () => {
    api.serverViews = [makeServerView()];
    await renderAtBareAddress();
    await waitFor(() => expect(screen.getByTestId('nav-servers').getAttribute('aria-current')).toBe('page'));
  }, 30_000);

  it('opens on Servers once a profile exists', async () => {
    api.profileViews = [makeProfileView()];
    await renderAtBareAddress();
    await waitFor(() => expect(screen.getByTestId('nav-servers').getAttribute('aria-current')).toBe('page'));
  }, 30_000);
});
