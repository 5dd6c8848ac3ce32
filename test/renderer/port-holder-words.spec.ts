import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import { afterEach, describe, expect, it } from 'vitest';
import ErrorBanner from '../../renderer/src/components/ErrorBanner.svelte';
import { setLocale } from '../../renderer/src/lib/i18n';
import { DRY_RUN_PORT_ACTION_KEY, DryRunPortAction } from '../../renderer/src/lib/state/dry-run-port.svelte';
import TunnelPanel from '../../renderer/src/pages/servers/TunnelPanel.svelte';
import DoctorPanel from '../../renderer/src/pages/servers/profiles/DoctorPanel.svelte';
import { FakeApi, makeDoctorCheck, makeDoctorReport, makeTunnel } from './fake-api';
import { installDryRunFake } from './fakes/dryrun';

// The backend names the app's own dry run as a port's holder in data (PORT_IN_USE params, a doctor check's
// portHolder); here the renderer words it in both languages and offers "Stop the dry run" where it is said.
const HELD = { code: 'PORT_IN_USE', message: "Port 10086 is already in use on the engine's host. Stop the app's dry run, or choose another port.", params: { holder: 'app-dry-run', port: 10086 } };

function withAction(api: FakeApi) {
  return new Map([[DRY_RUN_PORT_ACTION_KEY, () => new DryRunPortAction(api)]]);
}

async function runningDryRun(): Promise<FakeApi> {
  const api = new FakeApi();
  installDryRunFake(api);
  const config = { port: 10086, llm: { baseUrl: 'http://127.0.0.1:11434/v1', model: 'm', secretId: null } };
  expect((await api.dryrun.start({ config } as never)).ok).toBe(true);
  return api;
}

afterEach(() => setLocale('en'));

describe("a port held by the app's dry run", () => {
  it('the error banner says so from the params, and its Stop action stops the dry run', async () => {
    const api = await runningDryRun();
    const context = withAction(api);
    const first = render(ErrorBanner, { props: { error: HELD }, context });
    const banner = screen.getByTestId('error-banner');
    expect(banner.querySelector('strong')?.textContent).toBe("The app's dry run holds port 10086 — stop the dry run or choose another port.");
    expect(within(banner).getByTestId('error-help').textContent).toContain('swarm server inside this app');
    await fireEvent.click(within(banner).getByTestId('stop-dry-run-button'));
    await waitFor(() => expect(within(banner).getByTestId('stop-dry-run-outcome').textContent).toContain('port 10086 is free'));
    expect(api.requestsOn('dryrun:stop')).toHaveLength(1);
    expect(within(banner).queryByTestId('stop-dry-run-button')).toBeNull();
    // A later refusal (the dry run was started again) offers the action afresh.
    first.unmount();
    render(ErrorBanner, { props: { error: HELD }, context });
    expect(screen.getByTestId('stop-dry-run-button')).toBeTruthy();
  });

  it('in zh-CN too; another holder keeps the generic title; no action without a window to act in', () => {
    setLocale('zh-CN');
    const { unmount } = render(ErrorBanner, { props: { error: HELD } });
    expect(screen.getByTestId('error-banner').querySelector('strong')?.textContent).toBe('端口 10086 被本应用的试运行占用 — 请停止试运行，或选择其他端口。');
    expect(screen.queryByTestId('stop-dry-run')).toBeNull();
    unmount();
    setLocale('en');
    render(ErrorBanner, { props: { error: { ...HELD, params: { holder: 'process', port: 10086, command: 'python3', pid: 42 } } } });
    expect(screen.getByTestId('error-banner').querySelector('strong')?.textContent).toBe('Port already in use.');
  });

  it('the doctor words the port check itself, without the `ss` command, and offers Stop', async () => {
    const api = await runningDryRun();
    const report = makeDoctorReport('qwen', {}, [
      makeDoctorCheck('port', { status: 'fail', detail: "Port 10086 is held by the app's own dry run on this computer.", fix: 'Stop the dry run, or choose another port in the profile.', portHolder: { kind: 'app-dry-run', port: 10086 } }),
    ]);
    render(DoctorPanel, { props: { report }, context: withAction(api) });
    const port = screen.getByTestId('doctor-check-port');
    expect(within(port).getByTestId('doctor-port-dry-run').textContent).toBe("The app's dry run holds port 10086 — stop the dry run or choose another port.");
    expect(within(port).queryByTestId('doctor-command')).toBeNull();
    await fireEvent.click(within(port).getByTestId('stop-dry-run-button'));
    await waitFor(() => expect(api.requestsOn('dryrun:stop')).toHaveLength(1));
  });

  it("a tunnel whose local port the dry run holds says so, not the process name", () => {
    const moved = { localPort: 10087, url: 'http://127.0.0.1:10087', portWasTaken: true, portTakenBy: "the app's own dry run" };
    const { unmount } = render(TunnelPanel, { props: { tunnel: makeTunnel({ ...moved, portHolder: { kind: 'app-dry-run', port: 10086 } }) } });
    expect(screen.getByTestId('tunnel-port-taken').textContent?.trim()).toBe("Port 10086 is held by the app's dry run, using 10087.");
    unmount();
    setLocale('zh-CN');
    render(TunnelPanel, { props: { tunnel: makeTunnel({ ...moved, portHolder: { kind: 'app-dry-run', port: 10086 } }) } });
    expect(screen.getByTestId('tunnel-port-taken').textContent?.trim()).toBe('端口 10086 被本应用的试运行占用，改用 10087。');
  });
});
