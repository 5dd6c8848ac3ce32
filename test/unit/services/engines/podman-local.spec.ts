import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createAppServices } from '../../../../electron/services/app-services';
import { EventHub } from '../../../../electron/services/events';
import { localPodmanHostBesides } from '../../../../electron/services/engines/podman';

let dir: string | null = null;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = null;
});

async function services(podmanHost: string | null) {
  dir = await mkdtemp(join(tmpdir(), 'agentswarm-podman-local-'));
  return createAppServices({ dataDir: dir, host: 'browser', version: '0.0.0-test', events: new EventHub(), dockerHost: `unix://${join(dir, 'no-docker.sock')}`, podmanHost });
}

describe('the local Podman engine', () => {
  it('is registered as local-podman of kind podman when the app is given its socket', async () => {
    const app = await services('unix:///nonexistent/podman/podman.sock');
    try {
      const engines = await app.handlers['engines:list']({});
      expect(engines).toContainEqual({ id: 'local-podman', kind: 'podman', label: 'Local Podman', endpoint: 'unix:///nonexistent/podman/podman.sock' });
      // Nobody serves that socket: Podman's own fix, never Docker's.
      const health = await app.handlers['engines:health']({ engineId: 'local-podman' });
      expect(health).toMatchObject({ reachable: false, error: { code: 'ENGINE_UNREACHABLE' } });
      expect(health.error?.message).toContain('podman.socket');
      expect(health.error?.message).not.toMatch(/docker/i);
    } finally {
      await app.dispose();
    }
  });

  it('is not registered when told so, nor when Local Docker already uses the same socket', async () => {
    const app = await services(null);
    try {
      expect((await app.handlers['engines:list']({})).map((e) => e.id)).not.toContain('local-podman');
    } finally {
      await app.dispose();
    }
    expect(localPodmanHostBesides('unix:///run/podman/podman.sock', 'unix:///run/podman/podman.sock', {})).toBeNull();
    expect(localPodmanHostBesides(undefined, undefined, { DOCKER_HOST: 'unix:///run/user/7/podman/podman.sock', CONTAINER_HOST: 'unix:///run/user/7/podman/podman.sock' })).toBeNull();
    expect(localPodmanHostBesides(undefined, 'unix:///run/podman/podman.sock', {})).toBe('unix:///run/podman/podman.sock');
  });
});
