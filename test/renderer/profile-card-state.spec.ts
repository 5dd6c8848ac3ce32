// The profile card tells what the container row tells about the same server (issue 31's first row of disagreements:
// the card said "Stopped" or "Waiting for a client" where the row said "Crashed (exit code 1)" with the explaining
// lines). Both render one view model (swarmRowView) through one component; this checks the words on both surfaces,
// in English and Chinese, for a crash, a failed boot and an exit seen after a reload. The backend is the fake API
// (a TEST DOUBLE of the contract, fake-api.ts).
import { render, screen, waitFor, within } from '@testing-library/svelte';
import { beforeEach, describe, expect, it } from 'vitest';
import App from '../../renderer/src/App.svelte';
import { setApiForTests } from '../../renderer/src/lib/api';
import type { SwarmContainer } from '../../electron/shared/schemas';
import { FakeApi, makeProfileView, makeStatus } from './fake-api';
import { rowFor } from './rows';

const VERL = "ModuleNotFoundError: No module named 'verl'";
let api: FakeApi;

beforeEach(() => {
  api = new FakeApi();
  setApiForTests(api);
});

async function cardOf(profileId: string): Promise<HTMLElement> {
  return waitFor(() => {
    const found = screen.getAllByTestId('profile-card').find((el) => el.dataset.profileId === profileId);
    if (!found) throw new Error(`no card for ${profileId}`);
    return found;
  });
}

/** A profile whose server is `container`, listed on the page as a row too. */
function profileWith(container: SwarmContainer): void {
  api.containers = [container];
  api.profileViews = [makeProfileView({}, { container, containerConfigHash: 'aaaaaaaaaaaaaaaa' })];
}

describe('the profile card and the container row tell one truth', () => {
  it('a crash: the same sentence and the same log lines on both, not a bare "Stopped"', async () => {
    const container = api.makeContainer({ state: 'exited', exitCode: 1, finishedAt: new Date().toISOString(), statusText: 'Exited (1) 2 seconds ago' });
    profileWith(container);
    api.statusList = [makeStatus(container.id, { connection: 'stopped', engineStatus: null, exit: { kind: 'crashed', code: 1, finishedAt: container.finishedAt, log: { lines: [VERL], explains: true } } })];
    render(App);
    const card = await cardOf('qwen-7b');
    const row = await rowFor(container.id);
    const onCard = await within(card).findByTestId('profile-exit');
    const onRow = await within(row).findByTestId('swarm-exit');
    expect(onCard.dataset.kind).toBe('crashed');
    expect(onCard.textContent).toBe(onRow.textContent);
    expect(onCard.textContent).toContain('exit code 1');
    expect(within(onCard).getByTestId('profile-exit-log').textContent).toBe(VERL);
    expect(within(card).getByTestId('profile-connection').textContent).toBe(within(row).getByTestId('swarm-connection').textContent);
  });

  it('a failed boot while the container runs: the problem and its lines on the card as on the row', async () => {
    const container = api.makeContainer();
    profileWith(container);
    api.statusList = [makeStatus(container.id, { engineStatus: 'ENGINE.OFFLINE', engineProblem: { kind: 'boot-failed', since: new Date().toISOString(), log: { lines: [VERL], explains: true } } })];
    render(App);
    const card = await cardOf('qwen-7b');
    const row = await rowFor(container.id);
    const onCard = await within(card).findByTestId('profile-engine-problem');
    expect(onCard.dataset.kind).toBe('boot-failed');
    expect(onCard.textContent).toBe((await within(row).findByTestId('swarm-engine-problem')).textContent);
    expect(onCard.textContent).toContain('The training engine stopped while booting');
    // The hint that would mislead ("waiting for a client to sync a config") is not shown beside a problem.
    expect(within(card).queryByTestId('profile-engine-hint')).toBeNull();
    expect(within(card).getByTestId('profile-engine-status').textContent).toBe('ENGINE.OFFLINE');
  });

  it('speaks Chinese on both surfaces alike', async () => {
    api.settingsValue.language = 'zh-CN';
    const container = api.makeContainer({ state: 'exited', exitCode: 137, finishedAt: new Date().toISOString(), statusText: 'Exited (137) 1 second ago' });
    profileWith(container);
    api.statusList = [makeStatus(container.id, { connection: 'stopped', engineStatus: null, exit: { kind: 'killed', code: 137, finishedAt: container.finishedAt, log: { lines: [], explains: false } } })];
    render(App);
    const card = await cardOf('qwen-7b');
    const row = await rowFor(container.id);
    const onCard = await within(card).findByTestId('profile-exit');
    await waitFor(() => expect(onCard.textContent).toMatch(/[\u4e00-\u9fff]/));
    expect(onCard.textContent).toBe((await within(row).findByTestId('swarm-exit')).textContent);
    expect(onCard.textContent).toMatch(/137/);
    expect(onCard.textContent).toMatch(/[\u4e00-\u9fff]/);
  });
});
