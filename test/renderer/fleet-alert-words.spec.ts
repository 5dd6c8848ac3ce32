import { render, screen, within } from '@testing-library/svelte';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import AlertList from '../../renderer/src/pages/fleet/AlertList.svelte';
import { setApiForTests } from '../../renderer/src/lib/api';
import { setLocale } from '../../renderer/src/lib/i18n';
import type { FleetAlert } from '../../electron/shared/schemas-fleet';
import { FakeApi } from './fake-api';
import { installFleetFake } from './fakes/fleet';

// Issue 32: a fleet alert's detail is worded from the facts the backend sends (FleetAlert.say, the
// shapes of test/unit/services/fleet/alert-rules.spec.ts), so a Chinese user reads it in Chinese;
// an alert kept on disk from before has only its English detail, marked so.

const opened = new Date().toISOString();
const alert = (id: string, rule: FleetAlert['rule'], detail: string, say: FleetAlert['say']): FleetAlert => ({
  id,
  rule,
  engineId: 'local',
  containerId: `c-${id}`,
  name: 'night-run',
  state: 'open',
  openedAt: opened,
  resolvedAt: null,
  detail,
  say,
});

const ALERTS = (): FleetAlert[] => [
  alert('a1', 'gpus-idle', '4 GPUs under 5 % for 15 min', { key: 'gpusIdle', params: { n: 4, pct: 5, minutes: 15 } }),
  alert('a2', 'training-stalled', 'no new step for 31 min after step 4 (a step takes 300 s)', { key: 'stalled', params: { minutes: 31, step: 4, seconds: 300 } }),
  alert('a3', 'reward', 'the mean reward fell from 0.800 to 0.390 over 5 steps', { key: 'rewardDrop', params: { from: '0.800', to: '0.390', steps: 5 } }),
  alert('a4', 'disk', 'the disk of /data is 95 % full', { key: 'diskOf', params: { path: '/data', pct: 95 } }),
  alert('a5', 'slurm-time-limit', 'Slurm job 243 reaches its time limit in ~90 s: …', { key: 'slurmLimitIn', params: { job: '243', seconds: 90 } }),
];

describe('fleet alerts worded from data', () => {
  let api: FakeApi;
  beforeEach(() => {
    api = new FakeApi();
    setApiForTests(api);
    installFleetFake(api);
  });
  afterEach(() => setLocale('en'));

  it('says each alert’s detail in Chinese, with no English sentence', async () => {
    setLocale('zh-CN');
    api.answer('alerts:list', () => ALERTS());
    render(AlertList, { api });
    const rows = await screen.findAllByTestId('fleet-alert');
    const detail = (i: number) => within(rows[i]!).getByTestId('fleet-alert-detail').textContent;
    expect(detail(0)).toBe('4 块 GPU 的利用率低于 5 % 已有 15 分钟');
    expect(detail(1)).toBe('第 4 步之后 31 分钟没有新的步（每步通常需要 300 秒）');
    expect(detail(2)).toBe('平均奖励在 5 步内从 0.800 降到了 0.390');
    expect(detail(3)).toBe('/data 所在的磁盘已用 95 %');
    expect(detail(4)).toContain('Slurm 作业 243 约 90 秒后达到时间限制');
    const list = screen.getByTestId('fleet-alerts');
    expect(list.querySelectorAll('[lang="en"]')).toHaveLength(0);
    // Latin words left are the server's name, product names, paths and numbers only.
    const words = (list.textContent ?? '').replaceAll('night-run', ' ').replaceAll('/data', ' ').match(/[A-Za-z]{2,}/g) ?? [];
    expect(words.filter((w) => !['GPU', 'Slurm'].includes(w))).toEqual([]);
  });

  it('says the same in English, and shows an alert kept from before its facts were data in its English, marked so', async () => {
    setLocale('en');
    const old = { ...alert('a0', 'no-client', 'no active client for 10 min while the engine is ROLLING', null) };
    delete (old as Partial<FleetAlert>).say;
    api.answer('alerts:list', () => [...ALERTS(), old]);
    render(AlertList, { api });
    const rows = await screen.findAllByTestId('fleet-alert');
    expect(within(rows[0]!).getByTestId('fleet-alert-detail').textContent).toBe('4 GPU(s) under 5 % for 15 min');
    const kept = rows.find((row) => row.dataset.rule === 'no-client')!;
    expect(kept.querySelector('[lang="en"]')?.textContent).toBe('no active client for 10 min while the engine is ROLLING');
  });
});
