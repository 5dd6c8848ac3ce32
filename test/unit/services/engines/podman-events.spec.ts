import { describe, expect, it } from 'vitest';
import { Readable } from 'node:stream';
import type Docker from 'dockerode';
import type { ContainerEvent } from '../../../../electron/services/engines/container-engine';
import { watchDockerEvents } from '../../../../electron/services/engines/docker-logs';
import { parsePodmanEvent, PODMAN_EVENTS } from '../../../../electron/services/engines/podman-events';

// Podman 4.3.1's compat events for `podman stop` + `podman rm` of a container (as captured from its /events).
const id = '4e03881639a85550134374f5b2bb9ad96c745707f47b6bb4ba8dc9ec0f26fad0';
const attributes = { containerExitCode: '0', image: 'localhost/agentswarm-test/fake-swarm:1', name: 'probe-x', podId: '', probe: '1' };
const podmanEvent = (action: string, extra: Record<string, string> = {}, nanos = 1796408037826936100) => ({
  status: action,
  id,
  from: 'localhost/agentswarm-test/fake-swarm:1',
  Type: 'container',
  Action: action,
  Actor: { ID: id, Attributes: { ...attributes, ...extra } },
  scope: 'local',
  time: Math.floor(nanos / 1e9),
  timeNano: nanos,
});

describe('Podman events in Docker\'s words', () => {
  it('maps remove to destroy and cleanup to stop, and keeps start and die with the exit code', () => {
    const seen = ['create', 'init', 'start', 'die', 'cleanup', 'cleanup', 'remove'].map((action) =>
      parsePodmanEvent(podmanEvent(action, action === 'die' ? { containerExitCode: '143', exitCode: '143' } : {})),
    );
    expect(seen.map((e) => e?.action ?? null)).toEqual([null, null, 'start', 'die', 'stop', 'stop', 'destroy']);
    expect(seen[3]).toMatchObject({ containerId: id, exitCode: 143, at: 1796408037826, labels: expect.objectContaining({ probe: '1' }) });
  });

  it('asks Podman\'s events API in its filter\'s words (died, not die), for the actions it sends', async () => {
    const asked: { filters: Record<string, string[]> }[] = [];
    // TEST DOUBLE: Podman's /events, answering once with the events of a stop and a remove.
    const docker = {
      getEvents: async (options: { filters: Record<string, string[]> }) => {
        asked.push(options);
        const body = asked.length === 1 ? ['die', 'cleanup', 'remove'].map((a) => `${JSON.stringify(podmanEvent(a))}\n`) : [];
        return Readable.from(body.map((text) => Buffer.from(text)));
      },
    } as unknown as Docker;
    const seen: ContainerEvent[] = [];
    const stop = watchDockerEvents(docker, { probe: '1' }, (e) => seen.push(e), () => Promise.resolve(PODMAN_EVENTS));
    try {
      await expect.poll(() => seen.map((e) => e.action), { timeout: 20_000 }).toEqual(['die', 'stop', 'destroy']);
      expect(asked[0]!.filters).toEqual({ type: ['container'], event: ['start', 'died', 'oom', 'stop', 'cleanup', 'remove'], label: ['probe=1'] });
    } finally {
      stop();
    }
  });
});
