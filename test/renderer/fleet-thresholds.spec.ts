import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import { beforeEach, describe, expect, it } from 'vitest';
import App from '../../renderer/src/App.svelte';
import { setApiForTests } from '../../renderer/src/lib/api';
import { checkThresholdDraft, draftOf } from '../../renderer/src/pages/fleet/threshold-fields';
import { AlertThresholds } from '../../electron/shared/schemas-fleet';
import { FakeApi } from './fake-api';
import { installFleetFake } from './fakes/fleet';

let api: FakeApi;
let saved: Partial<AlertThresholds>[];

beforeEach(() => {
  api = new FakeApi();
  setApiForTests(api);
  installFleetFake(api);
  let thresholds = AlertThresholds.parse({});
  saved = [];
  api.answer('alerts:list', () => []);
  api.answer('alerts:thresholds', () => thresholds);
  api.answer('alerts:set-thresholds', (patch) => {
    saved.push(patch!);
    thresholds = AlertThresholds.parse({ ...thresholds, ...patch });
    return thresholds;
  });
});

async function openForm(): Promise<HTMLElement> {
  render(App);
  await fireEvent.click(screen.getByTestId('nav-fleet'));
  const form = await screen.findByTestId('fleet-thresholds');
  // The summary unfolds it (a <details>): jsdom fires no toggle on its own.
  (form as HTMLDetailsElement).open = true;
  await fireEvent(form, new Event('toggle'));
  await within(form).findByTestId('fleet-threshold-idlePct');
  return form;
}

describe('the alert thresholds (pure)', () => {
  it('shows the reward drop as a percentage and saves it as the fraction the backend keeps', () => {
    const draft = draftOf(AlertThresholds.parse({}));
    expect(draft).toMatchObject({ idlePct: '5', idleMinutes: '15', rewardDropFraction: '50', rewardWindow: '5', diskPct: '90' });
    expect(checkThresholdDraft({ ...draft, rewardDropFraction: '30', idleMinutes: '2.5' }).values).toMatchObject({ rewardDropFraction: 0.3, idleMinutes: 2.5 });
    expect(checkThresholdDraft({ ...draft, diskPct: '120', rewardWindow: '2.5', idlePct: 'x' }).errors).toEqual({
      diskPct: { kind: 'range', min: 1, max: 100 },
      rewardWindow: { kind: 'integer' },
      idlePct: { kind: 'number' },
    });
  });
});

describe('the alert thresholds form', () => {
  it('loads the thresholds, saves a change through alerts:set-thresholds and says so', async () => {
    const form = await openForm();
    const idle = within(form).getByTestId('fleet-threshold-idleMinutes') as HTMLInputElement;
    expect(idle.value).toBe('15');
    expect(within(form).getByRole('group', { name: 'GPUs idle' })).toBeTruthy();
    await fireEvent.input(idle, { target: { value: '30' } });
    await fireEvent.input(within(form).getByTestId('fleet-threshold-rewardDropFraction'), { target: { value: '25' } });
    await fireEvent.click(within(form).getByRole('button', { name: 'Save thresholds' }));
    await waitFor(() => expect(within(form).getByTestId('fleet-thresholds-saved').textContent).toBe('Saved.'));
    expect(saved).toEqual([{ ...AlertThresholds.parse({}), idleMinutes: 30, rewardDropFraction: 0.25 }]);
    expect((within(form).getByTestId('fleet-threshold-idleMinutes') as HTMLInputElement).value).toBe('30');
  });

  it('shows a save made in another window, unless the user is typing (their draft stays)', async () => {
    const form = await openForm();
    const idle = within(form).getByTestId('fleet-threshold-idleMinutes') as HTMLInputElement;
    expect(idle.value).toBe('15');
    api.emit('alerts:thresholds-changed', { ...AlertThresholds.parse({}), idleMinutes: 45 });
    await waitFor(() => expect(idle.value).toBe('45'));

    await fireEvent.input(idle, { target: { value: '20' } });
    api.emit('alerts:thresholds-changed', { ...AlertThresholds.parse({}), idleMinutes: 60 });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(idle.value).toBe('20');
  });

  it('names a wrong field in the page language, focuses it and saves nothing (zh-CN)', async () => {
    api.settingsValue.language = 'zh-CN';
    const form = await openForm();
    const disk = within(form).getByTestId('fleet-threshold-diskPct') as HTMLInputElement;
    await fireEvent.input(disk, { target: { value: '150' } });
    await fireEvent.click(within(form).getByRole('button', { name: '保存阈值' }));
    await waitFor(() => expect(document.activeElement).toBe(disk));
    expect(disk.getAttribute('aria-invalid')).toBe('true');
    expect(document.getElementById(disk.getAttribute('aria-describedby')!)?.textContent).toBe('请输入 1 到 100 之间的数字。');
    expect(saved).toEqual([]);
  });
});
