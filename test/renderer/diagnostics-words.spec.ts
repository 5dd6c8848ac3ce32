import { render, within } from '@testing-library/svelte';
import { afterEach, describe, expect, it } from 'vitest';
import DiagnosticsView from '../../renderer/src/pages/servers/DiagnosticsView.svelte';
import { setLocale } from '../../renderer/src/lib/i18n';
import type { DiagnosticsReport, DiagnosticStage } from '../../electron/shared/schemas-servers';

// Issue 32: "Test connection" words what each stage saw and its fix from the facts the backend
// sends (say, sayFix; the shapes of test/unit/services/ssh/diagnostics-words.spec.ts), so a Chinese
// user reads no English sentence; a program's output is quoted as it is, in <code>.

const HOST = 'alice@gpu.example.org:22';

function stage(partial: Partial<DiagnosticStage> & Pick<DiagnosticStage, 'stage' | 'status'>): DiagnosticStage {
  return { detail: null, error: null, fix: null, durationMs: 3, ...partial };
}

function report(): DiagnosticsReport {
  return {
    serverId: 'gpu-box',
    target: HOST,
    finishedAt: '2026-12-05T12:00:00.000Z',
    stages: [
      stage({ stage: 'tcp', status: 'pass', detail: '10.0.0.5:22 answered in 4 ms', say: { key: 'tcpAnswered', params: { endpoint: '10.0.0.5:22', ms: 4 } } }),
      stage({ stage: 'handshake', status: 'pass', detail: 'OpenSSH_9.2p1 Debian-2', say: { key: 'banner', params: { said: 'OpenSSH_9.2p1 Debian-2' } } }),
      stage({ stage: 'host-key', status: 'pass', detail: 'ssh-ed25519 SHA256:abc', say: { key: 'hostKey', params: { keyType: 'ssh-ed25519', fingerprint: 'SHA256:abc' } } }),
      stage({ stage: 'auth', status: 'pass', detail: 'key (key file /home/a/.ssh/id_ed25519)', say: { key: 'authKey', params: { path: '/home/a/.ssh/id_ed25519' } } }),
      stage({
        stage: 'docker-version',
        status: 'fail',
        error: { code: 'ENGINE_PERMISSION_DENIED', message: `Docker on ${HOST} did not answer through /var/run/docker.sock (permission denied).` },
        fix: 'On the server run `sudo usermod -aG docker alice`, then reconnect the server here: group changes only apply to new SSH logins.',
        sayFix: { key: 'dockerAddGroup', params: { user: 'alice' } },
      }),
      stage({
        stage: 'docker-permission',
        status: 'fail',
        detail: '/var/run/docker.sock is root:docker 660; alice is in: alice users',
        error: { code: 'ENGINE_PERMISSION_DENIED', message: `alice may not use /var/run/docker.sock on ${HOST} (permission denied).` },
        fix: 'On the server run `sudo usermod -aG docker alice`, then reconnect the server here: group changes only apply to new SSH logins.',
        say: { key: 'socketDenied', params: { path: '/var/run/docker.sock', user: 'alice', host: HOST, owner: 'root:docker 660', groups: 'alice users' } },
        sayFix: { key: 'dockerAddGroup', params: { user: 'alice' } },
      }),
      stage({ stage: 'gpus', status: 'skipped', durationMs: 0 }),
    ],
  };
}

/** Latin-letter words of a sentence outside <code> and outside what the backend quotes as data (host, paths, users). */
function englishWords(element: HTMLElement, data: string[]): string[] {
  const clone = element.cloneNode(true) as HTMLElement;
  for (const code of clone.querySelectorAll('code')) code.remove();
  let text = clone.textContent ?? '';
  for (const value of data) text = text.split(value).join(' ');
  const allowed = new Set(['tcp', 'ssh', 'ed25519', 'sudo', 'usermod', 'ag', 'docker', 'ssh-ed25519', 'sha256', 'ms', 'ssh-agent', 'openssh', 'api', 'socket', 'alice']);
  return (text.match(/[A-Za-z][A-Za-z-]+/g) ?? []).filter((word) => !allowed.has(word.toLowerCase()));
}

describe('the connection test worded from data', () => {
  afterEach(() => setLocale('en'));

  it('says each stage’s finding and fix in Chinese, quotes the server’s banner in <code>, and marks nothing English', () => {
    setLocale('zh-CN');
    const view = render(DiagnosticsView, { report: report() });
    const row = (name: string) => view.getByTestId(`diag-stage-${name}`);
    expect(within(row('tcp')).getByTestId('diag-detail-worded').textContent).toBe('10.0.0.5:22 在 4 毫秒内应答。');
    expect(within(row('handshake')).getByTestId('diag-detail-worded').textContent).toBe('SSH 服务器的标识为 OpenSSH_9.2p1 Debian-2');
    expect(within(row('handshake')).getByText('OpenSSH_9.2p1 Debian-2').tagName).toBe('CODE');
    expect(within(row('auth')).getByTestId('diag-detail-worded').textContent).toBe('已用密钥文件 /home/a/.ssh/id_ed25519 登录。');
    const denied = within(row('docker-permission'));
    expect(denied.getByTestId('diag-detail-worded').textContent).toBe(`alice 不能使用 ${HOST} 上的 /var/run/docker.sock：它属于 root:docker 660，而 alice 所在的组为 alice users。`);
    expect(denied.getByTestId('diag-fix-worded').textContent).toBe('在服务器上运行 sudo usermod -aG docker alice，然后在这里重新连接服务器：组的变更只对新的 SSH 登录生效。');
    // The error's title is the code's, in Chinese; its English specifics are not repeated under the worded finding.
    expect(denied.getByTestId('diag-error').textContent).not.toContain('permission denied');
    // The engine's own answer had no words of ours (the SSH layer's error text): it stays, marked English; the fix is worded.
    expect(within(row('docker-version')).getByTestId('diag-error').querySelector('[lang="en"]')?.textContent).toContain('did not answer through');
    expect(within(row('docker-version')).getByTestId('diag-fix-worded').textContent).toContain('sudo usermod -aG docker alice');
    for (const name of ['tcp', 'handshake', 'host-key', 'auth', 'docker-permission']) {
      expect(row(name).querySelectorAll('[lang="en"]'), name).toHaveLength(0);
      expect(englishWords(row(name), [HOST, '10.0.0.5:22', '/var/run/docker.sock', '/home/a/.ssh/id_ed25519', 'root:docker 660', 'alice users', 'ssh-ed25519', 'SHA256:abc']), name).toEqual([]);
    }
  });

  it('says the same in English, and adds the login methods that were not tried to a login failure’s fix', () => {
    setLocale('en');
    const failed = report();
    failed.stages[3] = stage({
      stage: 'auth',
      status: 'fail',
      error: { code: 'SSH_AUTH_FAILED', message: 'All configured authentication methods failed.' },
      fix: 'Check the user name; … Not tried: ssh-agent: skipped, SSH_AUTH_SOCK is not set (no agent running for this app).',
      sayFix: { key: 'authFailed', params: { notTried: 'agentNoSocket' } },
    });
    const view = render(DiagnosticsView, { report: failed });
    expect(within(view.getByTestId('diag-stage-docker-permission')).getByTestId('diag-detail-worded').textContent).toBe(
      `alice may not use /var/run/docker.sock on ${HOST}: it is root:docker 660, and alice is in the groups alice users.`,
    );
    expect(within(view.getByTestId('diag-stage-auth')).getByTestId('diag-fix-worded').textContent).toBe(
      'Check the user name; put your public key in ~/.ssh/authorized_keys on the server (ssh-copy-id), or check the password. Not tried: ssh-agent (SSH_AUTH_SOCK is not set: no agent runs for this app).',
    );
    view.unmount();
    setLocale('zh-CN');
    const zh = render(DiagnosticsView, { report: failed });
    expect(within(zh.getByTestId('diag-stage-auth')).getByTestId('diag-fix-worded').textContent).toContain('未尝试：ssh-agent（未设置 SSH_AUTH_SOCK');
  });

  it('words a refused TCP connection from the error’s facts, with no English left in the stage', () => {
    setLocale('zh-CN');
    const refused: DiagnosticsReport = {
      ...report(),
      stages: [
        stage({
          stage: 'tcp',
          status: 'fail',
          error: { code: 'SSH_UNREACHABLE', message: 'Cannot open a TCP connection to 10.0.0.5:22: connection refused: nothing listens on that port.' },
          fix: 'Check the host name and port, that sshd runs there, and that no firewall blocks the port.',
          say: { key: 'tcpRefused', params: { endpoint: '10.0.0.5:22', host: '10.0.0.5' } },
          sayFix: { key: 'tcp', params: {} },
        }),
      ],
    };
    const row = render(DiagnosticsView, { report: refused }).getByTestId('diag-stage-tcp');
    expect(within(row).getByTestId('diag-detail-worded').textContent).toBe('10.0.0.5:22 上没有程序监听：连接被拒绝。');
    expect(row.querySelectorAll('[lang="en"]')).toHaveLength(0);
    expect(row.textContent).not.toContain('refused');
  });
});
