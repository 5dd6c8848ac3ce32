import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import { beforeEach, describe, expect, it } from 'vitest';
import App from '../../renderer/src/App.svelte';
import { setApiForTests } from '../../renderer/src/lib/api';
import { setLocale } from '../../renderer/src/lib/i18n';
import { FakeApi } from './fake-api';
import { showServer } from './rows';
import { installDryRunFake, makeEpisode, type DryRunFake } from './fakes/dryrun';

// The wizard says "Passed: reward 1"; the trace of that episode must not say "aborted · reward —". The backend marks
// a debug episode (`debug: {reward}`); the trace table and the episode view word it.
let api: FakeApi;
let fake: DryRunFake;

beforeEach(() => {
  api = new FakeApi();
  api.engineList.push({ id: 'dry-run', kind: 'dry-run', label: 'This computer (dry run)', endpoint: 'in-app swarm server on 127.0.0.1' });
  fake = installDryRunFake(api);
  setApiForTests(api);
  setLocale('en');
});

async function startedCard(): Promise<HTMLElement> {
  render(App);
  await showServer('dry-run');
  const c = await screen.findByTestId('dryrun-card');
  await fireEvent.input(within(c).getByTestId('dryrun-base-url'), { target: { value: 'http://127.0.0.1:9999/v1' } });
  await fireEvent.input(within(c).getByTestId('dryrun-model'), { target: { value: 'fake-debug-model' } });
  await fireEvent.click(within(c).getByTestId('dryrun-key-none'));
  await fireEvent.click(within(c).getByTestId('dryrun-start'));
  await within(c).findByTestId('dryrun-traces-empty');
  return c;
}

const DEBUG = { episodeUuid: 'ep-debug-1', state: 'aborted' as const, reward: null, debug: { reward: 1 }, detail: 'debug episode: given back with abort_episode by design, not trained on' };

describe('a debug episode in the dry run trace', () => {
  it('reads "debug episode, not trained on" with its reward in the table and the episode; a plain abort stays "aborted"', async () => {
    const c = await startedCard();
    fake.addEpisode(makeEpisode({ episodeUuid: 'ep-plain-1', state: 'aborted', reward: null, calls: [], llmCalls: 0 }));
    fake.addEpisode(makeEpisode(DEBUG));
    await waitFor(() => expect(within(c).getAllByTestId('dryrun-episode-row')).toHaveLength(2));
    const [debugRow, plainRow] = within(c).getAllByTestId('dryrun-episode-row');
    expect(debugRow?.dataset.debug).toBe('true');
    expect(within(debugRow!).getByTestId('dryrun-episode-state').textContent).toBe('debug episode, not trained on');
    expect(within(debugRow!).getByTestId('dryrun-episode-reward').textContent).toBe('1');
    expect(within(plainRow!).getByTestId('dryrun-episode-state').textContent).toBe('aborted');
    expect(within(plainRow!).getByTestId('dryrun-episode-reward').textContent).toBe('—');

    await fireEvent.click(within(debugRow!).getByTestId('dryrun-episode-open'));
    const episode = await within(c).findByTestId('dryrun-episode');
    expect(within(episode).getByTestId('dryrun-episode-facts').textContent).toBe('Step 1 · task task-a · debug episode, not trained on · reward 1');
    expect(within(episode).getByTestId('dryrun-episode-debug').textContent).toContain('abort_episode by design');
  });

  it('in Simplified Chinese', async () => {
    const c = await startedCard();
    setLocale('zh-CN');
    fake.addEpisode(makeEpisode(DEBUG));
    const row = await within(c).findByTestId('dryrun-episode-row');
    expect(within(row).getByTestId('dryrun-episode-state').textContent).toBe('调试回合，不参与训练');
    expect(within(row).getByTestId('dryrun-episode-reward').textContent).toBe('1');
  });
});
