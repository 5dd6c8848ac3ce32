import { fireEvent, render, screen, waitFor } from '@testing-library/svelte';
import { beforeEach, describe, expect, it } from 'vitest';
import App from '../../renderer/src/App.svelte';
import { setApiForTests } from '../../renderer/src/lib/api';
import { FakeApi } from './fake-api';

let api: FakeApi;

beforeEach(() => {
  api = new FakeApi();
  setApiForTests(api);
});

function input(testId: string): HTMLInputElement {
  return screen.getByTestId(testId) as HTMLInputElement;
}

describe('Start form', () => {
  it('fills its defaults from settings and sends the full start request', async () => {
    api.settingsValue.swarm = { ...api.settingsValue.swarm, image: '127.0.0.1:5000/agentjet:test', port: 10099 };
    render(App);
    await waitFor(() => expect(input('swarm-image-input').value).toBe('127.0.0.1:5000/agentjet:test'));
    expect(input('swarm-port-input').value).toBe('10099');
    expect((screen.getByTestId('swarm-network-select') as HTMLSelectElement).value).toBe('publish');

    await fireEvent.input(input('swarm-port-input'), { target: { value: '10100' } });
    await fireEvent.change(screen.getByTestId('swarm-network-select'), { target: { value: 'host' } });
    await fireEvent.click(input('swarm-gpus-checkbox'));
    await fireEvent.click(screen.getByTestId('swarm-start-button'));

    await waitFor(() => expect(api.requestsOn('swarm:start')).toHaveLength(1));
    expect(api.requestsOn('swarm:start')[0]).toEqual({
      engineId: 'local',
      image: '127.0.0.1:5000/agentjet:test',
      port: 10100,
      networkMode: 'host',
      gpus: true,
      shmSizeGb: 32,
    });
    // The new container appears via the containers-changed event / refetch.
    await screen.findByTestId('swarm-container-row');
  });

  it('follows what the engine reports of GPUs (issue 32): none → "Use all GPUs" unticked and said why; a count is shown', async () => {
    // Settings say "GPUs" (the saved default), the laptop's engine has no NVIDIA runtime.
    api.settingsValue.swarm = { ...api.settingsValue.swarm, gpus: true };
    api.health = { ...api.health, gpus: { runtime: false, devices: null } };
    const first = render(App);
    await waitFor(() => expect(screen.getByTestId('swarm-gpus-engine').textContent).toContain('reports no GPUs for containers'));
    expect(input('swarm-gpus-checkbox').checked).toBe(false);
    await fireEvent.click(screen.getByTestId('swarm-start-button'));
    await waitFor(() => expect(api.requestsOn('swarm:start')).toHaveLength(1));
    expect(api.requestsOn('swarm:start')[0]).toMatchObject({ gpus: false });
    first.unmount();

    // (The start saved its values, "no GPUs" among them, as the next defaults: back to a saved "GPUs".)
    api.settingsValue.swarm = { ...api.settingsValue.swarm, gpus: true };
    api.health = { ...api.health, gpus: { runtime: true, devices: 1 } };
    render(App);
    await waitFor(() => expect(screen.getByTestId('swarm-gpus-engine').textContent).toBe('This engine reports 1 GPU for containers.'));
    expect(input('swarm-gpus-checkbox').checked).toBe(true);
  });

  it('offers a new profile "GPUs: none" on an engine that reports none, "All" on one that has them (issue 32)', async () => {
    api.health = { ...api.health, gpus: { runtime: false, devices: null } };
    const first = render(App);
    await waitFor(() => expect(screen.getByTestId('swarm-gpus-engine')).toBeTruthy());
    await fireEvent.click(await screen.findByTestId('profile-new'));
    expect(input('profile-form-gpus-none').checked).toBe(true);
    first.unmount();

    api.health = { ...api.health, gpus: { runtime: true, devices: null } };
    render(App);
    await waitFor(() => expect(api.requestsOn('engines:health').length).toBeGreaterThan(1));
    await fireEvent.click(await screen.findByTestId('profile-new'));
    expect(input('profile-form-gpus-all').checked).toBe(true);
  });

  it('marks Start aria-disabled (still focusable) and says "Starting…" while the request runs, sending one request', async () => {
    const release = api.hold('swarm:start');
    render(App);
    await waitFor(() => expect(api.requestsOn('settings:get')).toHaveLength(1));
    const button = screen.getByTestId('swarm-start-button') as HTMLButtonElement;
    button.focus();

    await fireEvent.click(button);

    await waitFor(() => expect(button.textContent?.trim()).toBe('Starting…'));
    expect(button.getAttribute('aria-disabled')).toBe('true');
    // Not `disabled`: a disabled button drops keyboard focus to <body>.
    expect(button.disabled).toBe(false);
    expect(document.activeElement).toBe(button);
    await fireEvent.click(button);
    expect(api.requestsOn('swarm:start')).toHaveLength(1);
    release();
    await waitFor(() => expect(button.textContent?.trim()).toBe('Start'));
    expect(button.getAttribute('aria-disabled')).toBe('false');
    expect(document.activeElement).toBe(button);
  });

  it('shows a translated PORT_IN_USE banner with the backend message when start fails', async () => {
    api.failNext('swarm:start', {
      code: 'PORT_IN_USE',
      message: 'Bind for 127.0.0.1:10086 failed: port is already allocated',
    });
    render(App);
    await waitFor(() => expect(input('swarm-port-input').value).toBe('10086'));

    await fireEvent.click(screen.getByTestId('swarm-start-button'));

    const banner = await screen.findByTestId('error-banner');
    expect(banner.textContent).toContain('Port already in use.');
    expect(banner.textContent).toContain('Bind for 127.0.0.1:10086 failed: port is already allocated');
  });

  it('blocks a port outside 1024–65535 before calling the backend', async () => {
    render(App);
    await waitFor(() => expect(input('swarm-port-input').value).toBe('10086'));

    for (const bad of ['80', '70000', 'abc', '']) {
      await fireEvent.input(input('swarm-port-input'), { target: { value: bad } });
      await fireEvent.click(screen.getByTestId('swarm-start-button'));
      expect(screen.getByText('The port must be a whole number from 1024 to 65535.')).toBeTruthy();
    }
    expect(api.requestsOn('swarm:start')).toHaveLength(0);

    // Fixing the field clears the message live.
    await fireEvent.input(input('swarm-port-input'), { target: { value: '10087' } });
    expect(screen.queryByText('The port must be a whole number from 1024 to 65535.')).toBeNull();
  });

  it('blocks an empty or malformed image with a clear message', async () => {
    render(App);
    await waitFor(() => expect(input('swarm-image-input').value).not.toBe(''));

    await fireEvent.input(input('swarm-image-input'), { target: { value: '   ' } });
    await fireEvent.click(screen.getByTestId('swarm-start-button'));
    expect(screen.getByText('Enter an image, e.g. ghcr.io/modelscope/agentjet:main.')).toBeTruthy();

    await fireEvent.input(input('swarm-image-input'), { target: { value: 'agentjet; rm -rf /' } });
    expect(screen.getByText(/The image must look like registry\/name:tag/)).toBeTruthy();
    expect(api.requestsOn('swarm:start')).toHaveLength(0);
  });

  it('points aria-describedby at a field error only while that error is shown', async () => {
    render(App);
    await waitFor(() => expect(input('swarm-port-input').value).toBe('10086'));
    expect(input('swarm-port-input').hasAttribute('aria-describedby')).toBe(false);
    expect(input('swarm-image-input').hasAttribute('aria-describedby')).toBe(false);

    await fireEvent.input(input('swarm-port-input'), { target: { value: '80' } });
    await fireEvent.click(screen.getByTestId('swarm-start-button'));
    const describedBy = input('swarm-port-input').getAttribute('aria-describedby');
    expect(describedBy).toBe('start-local-port-error');
    expect(document.getElementById(describedBy!)?.textContent).toBe('The port must be a whole number from 1024 to 65535.');
    expect(input('swarm-image-input').hasAttribute('aria-describedby')).toBe(false);

    await fireEvent.input(input('swarm-port-input'), { target: { value: '10087' } });
    expect(input('swarm-port-input').hasAttribute('aria-describedby')).toBe(false);
  });

  it('warns plainly that host mode exposes the unauthenticated swarm API on every interface', async () => {
    render(App);
    await waitFor(() => expect(input('swarm-port-input').value).toBe('10086'));
    const hint = screen.getByTestId('swarm-network-hint');
    expect(hint.textContent).toContain("Only the engine's host itself can reach the port");
    // One wording for the risk, in both modes.
    const risk = 'The swarm API has no authentication: anyone who can reach its port can start or stop training.';
    expect(hint.textContent).toContain(risk);

    await fireEvent.change(screen.getByTestId('swarm-network-select'), { target: { value: 'host' } });

    expect(hint.textContent).toContain(risk);
    expect(hint.textContent).toContain('all network interfaces');
    expect(hint.textContent).toContain('Publish on 127.0.0.1');
  });
});
