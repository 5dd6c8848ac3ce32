import { render, within } from '@testing-library/svelte';
import { afterEach, describe, expect, it } from 'vitest';
import DoctorPanel from '../../renderer/src/pages/servers/profiles/DoctorPanel.svelte';
import { setLocale } from '../../renderer/src/lib/i18n';
import { makeDoctorCheck, makeDoctorReport } from './fake-api';

// The doctor's details come as data (`say`) where the renderer has words for the case, so a
// Chinese user reads them in Chinese; a case without words keeps the backend's English detail.
describe('doctor details worded from data', () => {
  afterEach(() => setLocale('en'));

  it('words a check from its facts in zh-CN, with this computer named in words', () => {
    setLocale('zh-CN');
    const report = makeDoctorReport('p', {}, [
      makeDoctorCheck('port', { detail: 'Port 10086 is free on this computer.', say: { key: 'portFree', params: { port: 10086, host: '' } } }),
      makeDoctorCheck('image', { detail: 'img:1 is present (sha256:x).', say: { key: 'imageDigest', params: { image: 'img:1', digest: 'sha256:x' } } }),
    ]);
    const { getByTestId } = render(DoctorPanel, { report });
    expect(within(getByTestId('doctor-check-port')).getByTestId('doctor-detail-worded').textContent).toBe('本机上的端口 10086 空闲。');
    expect(within(getByTestId('doctor-check-image')).getByTestId('doctor-detail-worded').textContent).toBe('img:1 已存在（sha256:x）。');
  });

  it('words a warning’s or failure’s detail and its fix from the same facts (issue 32), in zh-CN and in English', () => {
    const checks = () => [
      makeDoctorCheck('port', {
        status: 'fail',
        detail: 'Port 10086 is already in use on gpu-1 (alice@10.0.0.5) by python3 (pid 4242).',
        fix: 'Stop whatever listens there, or choose another port in the profile.',
        command: "ss -ltnp 'sport = :10086'",
        commandWhere: 'server',
        say: { key: 'portInUseBy', params: { port: 10086, host: 'gpu-1 (alice@10.0.0.5)', command: 'python3', pid: 4242 } },
      }),
      makeDoctorCheck('model-dir', {
        status: 'fail',
        detail: 'There is no folder /srv/models/qwen on this computer.',
        fix: 'Download the model there (e.g. with huggingface-cli download <model> --local-dir /srv/models/qwen), or correct the path.',
        say: { key: 'modelMissing', params: { path: '/srv/models/qwen', host: '' } },
      }),
      makeDoctorCheck('gpu-host', {
        status: 'fail',
        detail: 'nvidia-smi on this computer lists no GPU (No devices were found).',
        fix: 'Check the NVIDIA driver there (a reboot after a driver update often helps), or set GPUs to "none".',
        say: { key: 'noGpuListedSaid', params: { host: '', said: 'No devices were found' } },
      }),
    ];
    setLocale('zh-CN');
    const zh = render(DoctorPanel, { report: makeDoctorReport('p', {}, checks()) });
    const row = (id: string) => within(zh.getByTestId(`doctor-check-${id}`));
    expect(row('port').getByTestId('doctor-detail-worded').textContent).toBe('gpu-1 (alice@10.0.0.5)上的端口 10086 已被 python3（PID 4242）占用。');
    expect(row('port').getByTestId('doctor-fix-worded').textContent).toBe('停止在那里监听的程序，或在配置中选择另一个端口。');
    expect(row('model-dir').getByTestId('doctor-detail-worded').textContent).toBe('本机上没有文件夹 /srv/models/qwen。');
    expect(row('model-dir').getByTestId('doctor-fix-worded').textContent).toContain('--local-dir /srv/models/qwen');
    // What nvidia-smi printed is quoted verbatim, in <code>, after the worded sentence.
    expect(row('gpu-host').getByTestId('doctor-detail-worded').textContent).toBe('本机上的 nvidia-smi 没有列出任何 GPU。它的输出：No devices were found');
    expect(row('gpu-host').getByText('No devices were found').tagName).toBe('CODE');
    for (const id of ['port', 'model-dir', 'gpu-host']) expect(zh.getByTestId(`doctor-check-${id}`).querySelectorAll('[lang="en"]'), id).toHaveLength(0);
    zh.unmount();

    setLocale('en');
    const en = render(DoctorPanel, { report: makeDoctorReport('p', {}, checks()) });
    expect(within(en.getByTestId('doctor-check-port')).getByTestId('doctor-detail-worded').textContent).toBe('Port 10086 is already in use on gpu-1 (alice@10.0.0.5) by python3 (pid 4242).');
    expect(within(en.getByTestId('doctor-check-model-dir')).getByTestId('doctor-fix-worded').textContent).toBe(
      'Download the model there (e.g. with huggingface-cli download <model> --local-dir /srv/models/qwen), or correct the path.',
    );
  });

  it('words a first run’s most likely failure, the image not pulled yet, with its fix and the mirrors', () => {
    setLocale('zh-CN');
    const report = makeDoctorReport('p', {}, [
      makeDoctorCheck('image', {
        status: 'fail',
        detail: 'ghcr.io/modelscope/agentjet:main is not on this engine yet.',
        fix: 'Pull it.',
        command: 'docker pull ghcr.io/modelscope/agentjet:main',
        commandWhere: 'local',
        say: { key: 'imageMissingMirrors', params: { image: 'ghcr.io/modelscope/agentjet:main', mirrors: 'ghcr.modelscope.cn/modelscope/agentjet:main' } },
      }),
    ]);
    const row = within(render(DoctorPanel, { report }).getByTestId('doctor-check-image'));
    expect(row.getByTestId('doctor-detail-worded').textContent).toBe('此引擎上还没有 ghcr.io/modelscope/agentjet:main。镜像仓库是否提供它，只有开始拉取后才知道。');
    expect(row.getByTestId('doctor-fix-worded').textContent).toBe('拉取它（“拉取镜像”按钮会显示进度）。如果从那里访问镜像仓库很慢或被阻断，请使用镜像站：ghcr.modelscope.cn/modelscope/agentjet:main。');
  });

  it('keeps the English detail, marked lang="en", for a case without words or an unknown key', () => {
    setLocale('zh-CN');
    const report = makeDoctorReport('p', {}, [makeDoctorCheck('shm', { detail: 'Only 1 GiB of shared memory.', say: { key: 'somethingNew', params: {} } })]);
    const { getByTestId } = render(DoctorPanel, { report });
    const detail = within(getByTestId('doctor-check-shm')).getByText('Only 1 GiB of shared memory.');
    expect(detail.getAttribute('lang')).toBe('en');
  });

  it('reads the same in English as the backend words it', () => {
    const report = makeDoctorReport('p', {}, [makeDoctorCheck('port', { detail: 'x', say: { key: 'portFree', params: { port: 10086, host: '' } } })]);
    const { getByTestId } = render(DoctorPanel, { report });
    expect(within(getByTestId('doctor-check-port')).getByTestId('doctor-detail-worded').textContent).toBe('Port 10086 is free on this computer.');
  });
});
