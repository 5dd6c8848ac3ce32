import { render, within } from '@testing-library/svelte';
import { afterEach, describe, expect, it } from 'vitest';
import DoctorPanel from '../../renderer/src/pages/servers/profiles/DoctorPanel.svelte';
import { setLocale } from '../../renderer/src/lib/i18n';
import type { DoctorCheck, DoctorReport } from '../../electron/shared/schemas-profiles';
import { makeDoctorCheck, makeDoctorReport } from './fake-api';

// Issue 32: the doctor's engine-reachability, Podman and Slurm findings are worded from the facts the
// backend sends (the shapes asserted in test/unit/services/doctor/podman-checks.spec.ts and
// slurm-checks.spec.ts), so a Chinese user reads them in Chinese; commands stay in <code>.

const HOST = 'gpu-1 (alice@10.0.0.5)';

function report(checks: DoctorCheck[]): DoctorReport {
  return { ...makeDoctorReport('p'), verdict: 'fail', checks };
}

const CHECKS = (): DoctorCheck[] => [
  makeDoctorCheck('engine-reachable', {
    status: 'fail',
    detail: 'Cannot reach Podman at ssh://alice@10.0.0.5/run/user/1001/podman/podman.sock (ECONNREFUSED).',
    fix: 'The Podman API service is not running for alice on gpu-1 …',
    command: 'podman version',
    commandWhere: 'server',
    say: { key: 'unreachablePodmanServer', params: { product: 'Podman', endpoint: 'ssh://alice@10.0.0.5/run/user/1001/podman/podman.sock', host: HOST } },
  }),
  makeDoctorCheck('podman-linger', {
    status: 'warn',
    detail: 'Lingering is off for alice on gpu-1 …',
    fix: 'Turn lingering on for alice (needs an administrator of gpu-1):',
    command: "sudo loginctl enable-linger 'alice'",
    commandWhere: 'server',
    say: { key: 'lingerOff', params: { user: 'alice', host: HOST, said: '' } },
  }),
  makeDoctorCheck('podman-storage', {
    status: 'warn',
    detail: 'Could not read rootless Podman’s storage driver on gpu-1 (sh: 1: podman: not found).',
    fix: 'Check it by hand:',
    say: { key: 'storageUnknownSaid', params: { host: HOST, said: 'sh: 1: podman: not found' } },
  }),
  makeDoctorCheck('podman-network', {
    status: 'pass',
    detail: 'Published ports work …',
    say: { key: 'networkOk', params: { host: '', tools: 'pasta', port: 10086, mode: '–' } },
  }),
  makeDoctorCheck('slurm-gpus', {
    status: 'fail',
    detail: 'The job asks for 8 a100 GPUs, but the nodes of gpu have at most 4: it could never start.',
    fix: 'Ask for at most 4 GPUs …',
    say: { key: 'slurmTooManyGpus', params: { asked: '8 × a100', partition: 'gpu', most: 4, type: 'a100' } },
  }),
  makeDoctorCheck('slurm-submit', {
    status: 'fail',
    detail: 'sbatch: error: Batch job submission failed: Invalid account or account/partition combination specified',
    fix: 'Change the profile’s Slurm options as the message says; Start would be refused the same way.',
    command: 'sbatch --test-only job.sh',
    commandWhere: 'server',
    say: { key: 'slurmRefused', params: {} },
  }),
];

describe('the doctor’s engine, Podman and Slurm findings worded from data', () => {
  afterEach(() => setLocale('en'));

  it('says them in Chinese, program output in <code>, and keeps English only for Slurm’s own refusal', () => {
    setLocale('zh-CN');
    const view = render(DoctorPanel, { report: report(CHECKS()) });
    const row = (id: string) => within(view.getByTestId(`doctor-check-${id}`));
    expect(row('engine-reachable').getByTestId('doctor-detail-worded').textContent).toBe('Podman 在 ssh://alice@10.0.0.5/run/user/1001/podman/podman.sock 没有应答。');
    expect(row('engine-reachable').getByTestId('doctor-fix-worded').textContent).toContain(`${HOST}上应用所用用户的 Podman API 服务没有运行`);
    expect(row('podman-linger').getByTestId('doctor-detail-worded').textContent).toContain(`${HOST}上 alice 的 linger 未开启`);
    expect(row('podman-linger').getByTestId('doctor-fix-worded').textContent).toBe(`为 alice 开启 linger（需要${HOST}的管理员）：`);
    expect(row('podman-storage').getByText('sh: 1: podman: not found').tagName).toBe('CODE');
    // '' is this computer, named in the page's language.
    expect(row('podman-network').getByTestId('doctor-detail-worded').textContent).toBe('本机上 rootless Podman 的端口发布正常：已安装 pasta，/dev/net/tun 可用。');
    expect(row('slurm-gpus').getByTestId('doctor-detail-worded').textContent).toBe('作业申请 8 × a100 块 GPU，但 gpu 的节点最多只有 4 块：它永远无法启动。');
    for (const id of ['engine-reachable', 'podman-linger', 'podman-storage', 'podman-network', 'slurm-gpus']) {
      expect(view.getByTestId(`doctor-check-${id}`).querySelectorAll('[lang="en"]'), id).toHaveLength(0);
    }
    // Slurm's refusal is Slurm's own text (what to change): shown as it is, marked English; its fix is worded.
    expect(row('slurm-submit').getByText(/Invalid account/).getAttribute('lang')).toBe('en');
    expect(row('slurm-submit').getByTestId('doctor-fix-worded').textContent).toBe('请按 Slurm 消息所说修改配置的 Slurm 选项；启动时也会以同样的原因被拒绝。');
  });

  it('says the same in English', () => {
    setLocale('en');
    const view = render(DoctorPanel, { report: report(CHECKS()) });
    const row = (id: string) => within(view.getByTestId(`doctor-check-${id}`));
    expect(row('podman-network').getByTestId('doctor-detail-worded').textContent).toBe('Published ports work for rootless Podman on this computer: pasta installed, /dev/net/tun usable.');
    expect(row('slurm-gpus').getByTestId('doctor-fix-worded').textContent).toBe('Ask for at most 4 GPUs (a job runs on one node), or choose a partition with bigger nodes.');
  });
});
