import type Docker from 'dockerode';
import { describe, expect, it } from 'vitest';
import { summaryFromInspect } from '../../../../electron/services/engines/docker-api-engine';

/** An inspect answer with only the fields summaryFromInspect reads (Docker's shape; Podman's compat API too). */
function inspect(state: Partial<Docker.ContainerInspectInfo['State']>): Docker.ContainerInspectInfo {
  return {
    Id: 'abc',
    Name: '/agentswarm-swarm-10086-abc123',
    Created: '2026-12-04T10:00:00Z',
    Config: { Image: 'img', Labels: {} },
    State: { Status: 'running', Running: false, ExitCode: 0, StartedAt: '2026-12-04T10:00:01Z', FinishedAt: '2026-12-04T10:00:05Z', OOMKilled: false, ...state },
  } as unknown as Docker.ContainerInspectInfo;
}

describe('summaryFromInspect: container states from Docker and Podman', () => {
  it("takes Docker's words as they are", () => {
    expect(summaryFromInspect(inspect({ Status: 'running', Running: true })).state).toBe('running');
    expect(summaryFromInspect(inspect({ Status: 'exited', ExitCode: 3 }))).toMatchObject({ state: 'exited', exitCode: 3 });
  });

  it("maps libpod's words that Podman's compat API passes through", () => {
    // Seen on rootless Podman 4.3 a moment after a crash: the process is gone, cleanup still runs.
    expect(summaryFromInspect(inspect({ Status: 'stopping', Running: false, ExitCode: 3 }))).toMatchObject({ state: 'exited', exitCode: 3 });
    expect(summaryFromInspect(inspect({ Status: 'stopped', Running: false })).state).toBe('exited');
    expect(summaryFromInspect(inspect({ Status: 'configured', StartedAt: '0001-01-01T00:00:00Z' }))).toMatchObject({ state: 'created', exitCode: null });
    expect(summaryFromInspect(inspect({ Status: 'initialized', StartedAt: '0001-01-01T00:00:00Z' })).state).toBe('created');
    // Still running while it is being stopped.
    expect(summaryFromInspect(inspect({ Status: 'stopping', Running: true })).state).toBe('running');
  });

  it('says unknown for a word it has never seen, rather than guessing', () => {
    expect(summaryFromInspect(inspect({ Status: 'hibernating', Running: false })).state).toBe('unknown');
  });
});
