import { fireEvent, render, screen, waitFor } from '@testing-library/svelte';
import { beforeEach, describe, expect, it } from 'vitest';
import type { ErrorCode } from '../../electron/shared/errors';
import App from '../../renderer/src/App.svelte';
import { setApiForTests } from '../../renderer/src/lib/api';
import { en } from '../../renderer/src/lib/i18n/en';
import { zhCN } from '../../renderer/src/lib/i18n/zh-CN';
import { FakeApi } from './fake-api';

let api: FakeApi;

beforeEach(() => {
  api = new FakeApi();
  setApiForTests(api);
});

/** Renders the app, waits for the start form's defaults, makes swarm:start fail and clicks Start. */
async function failStart(code: ErrorCode, message: string): Promise<HTMLElement> {
  api.failNext('swarm:start', { code, message });
  render(App);
  await waitFor(() => expect(api.requestsOn('settings:get')).toHaveLength(1));
  await fireEvent.click(await screen.findByTestId('swarm-start-button'));
  return screen.findByTestId('error-banner');
}

// The errors a user is most likely to meet when starting a swarm server, with typical backend
// messages (Docker's own words, which stay in English).
const cases: [ErrorCode, string][] = [
  ['ENGINE_UNREACHABLE', 'connect ENOENT /var/run/docker.sock'],
  ['ENGINE_PERMISSION_DENIED', 'connect EACCES /var/run/docker.sock'],
  ['IMAGE_NOT_FOUND', 'No such image: ghcr.io/modelscope/agentjet:main'],
  ['CONTAINER_START_FAILED', 'OCI runtime create failed: could not select device driver "nvidia"'],
  ['CONTAINER_CONFLICT', 'Conflict. The container name "/agentjet-swarm-10086" is already in use'],
  ['PORT_IN_USE', 'Bind for 127.0.0.1:10086 failed: port is already allocated'],
];

describe('Start form errors', () => {
  it.each(cases)('shows the translated %s title and the backend message', async (code, message) => {
    const banner = await failStart(code, message);

    expect(banner.dataset.errorCode).toBe(code);
    expect(banner.textContent).toContain(en[`errors.${code}`]);
    expect(banner.textContent).toContain(message);
    expect(api.requestsOn('swarm:start')).toHaveLength(1);
  });

  it('shows the title in Chinese when the language is zh-CN', async () => {
    api.settingsValue.language = 'zh-CN';
    const message = 'Bind for 127.0.0.1:10086 failed: port is already allocated';
    api.failNext('swarm:start', { code: 'PORT_IN_USE', message });
    render(App);
    await waitFor(() => expect(screen.getByTestId('swarm-start-button').textContent?.trim()).toBe('启动'));

    await fireEvent.click(screen.getByTestId('swarm-start-button'));

    const banner = await screen.findByTestId('error-banner');
    expect(banner.textContent).toContain(zhCN['errors.PORT_IN_USE']);
    expect(banner.textContent).not.toContain(en['errors.PORT_IN_USE']);
    expect(banner.textContent).toContain(message);
  });

  it('shows a BACKEND_UNREACHABLE title when the app backend is gone', async () => {
    const banner = await failStart('BACKEND_UNREACHABLE', 'Check that `npm run web` is still running.');
    expect(banner.textContent).toContain('The app backend is not reachable.');
    expect(banner.textContent).toContain('npm run web');
  });
});
