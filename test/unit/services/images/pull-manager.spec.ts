import { afterEach, describe, expect, it, vi } from 'vitest';
import { AppError } from '../../../../electron/shared/errors';
import type { PullView } from '../../../../electron/shared/schemas-profiles';
import type { ContainerEngine, PullEvent } from '../../../../electron/services/engines/container-engine';
import { EngineRegistry } from '../../../../electron/services/engines/engine-registry';
import { PullManager } from '../../../../electron/services/images/pull-manager';

/**
 * TEST DOUBLE: an engine whose pulls the test drives by hand (send messages, finish, fail), to check
 * the manager's joining, throttling, cancel and forgetting without a registry. The real pull is in
 * test/integration/image-pull.spec.ts.
 */
function scriptedEngine(id = 'local') {
  const pulls: { image: string; onEvent: (e: PullEvent) => void; signal: AbortSignal; resolve: () => void; reject: (e: unknown) => void }[] = [];
  const engine = {
    summary: { id, kind: 'local-docker', label: id, endpoint: 'unix:///x' },
    pullImage: (image: string, onEvent: (e: PullEvent) => void, signal: AbortSignal) =>
      new Promise<void>((resolve, reject) => {
        pulls.push({ image, onEvent, signal, resolve, reject });
        signal.addEventListener('abort', () => reject(Object.assign(new Error('cancelled'), { name: 'AbortError' })));
      }),
    dispose: async () => undefined,
  } as unknown as ContainerEngine;
  return { engine, pulls };
}

function setup(options: { keepMs?: number } = {}) {
  const { engine, pulls } = scriptedEngine();
  const engines = new EngineRegistry();
  engines.add(engine);
  const events: PullView[] = [];
  const manager = new PullManager({ engines, events: { emit: (_c, p) => events.push(p as PullView) }, eventIntervalMs: 200, ...options });
  return { manager, pulls, events };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('PullManager', () => {
  it('answers at once, and a second request for the same image joins the running pull', () => {
    const { manager, pulls } = setup();
    const first = manager.start('local', 'a/b:1');
    const second = manager.start('local', 'a/b:1');
    expect(first).toMatchObject({ phase: 'resolving', engineId: 'local', image: 'a/b:1', endedAt: null });
    expect(second.pullId).toBe(first.pullId);
    expect(pulls).toHaveLength(1);
    expect(manager.start('local', 'a/b:2').pullId).not.toBe(first.pullId);
    manager.dispose();
  });

  it('throttles progress events but sends phase changes and the final view at once', async () => {
    vi.useFakeTimers();
    const { manager, pulls, events } = setup();
    const view = manager.start('local', 'a/b:1');
    const pull = pulls[0]!;
    pull.onEvent({ id: 'l', status: 'Pulling fs layer' });
    for (let i = 1; i <= 50; i += 1) pull.onEvent({ id: 'l', status: 'Downloading', progressDetail: { current: i, total: 100 } });
    // start (resolving), the change to downloading; the other 49 wait for the interval.
    expect(events.map((e) => e.phase)).toEqual(['resolving', 'downloading']);
    vi.advanceTimersByTime(250);
    expect(events).toHaveLength(3);
    expect(events[2]!.bytesDone).toBe(50);
    pull.resolve();
    await vi.runAllTimersAsync();
    const last = events[events.length - 1]!;
    expect(last).toMatchObject({ pullId: view.pullId, phase: 'done', percent: 100, layersDone: 1, layersTotal: 1, etaSeconds: null });
    expect(last.endedAt).not.toBeNull();
  });

  it('cancel aborts the engine pull and answers with the cancelled view', async () => {
    const { manager, pulls, events } = setup();
    const view = manager.start('local', 'a/b:1');
    const cancelled = await manager.cancel(view.pullId);
    expect(pulls[0]!.signal.aborted).toBe(true);
    expect(cancelled).toMatchObject({ phase: 'cancelled', error: null });
    expect(events[events.length - 1]!.phase).toBe('cancelled');
    // After it ended a new request starts a new pull.
    expect(manager.start('local', 'a/b:1').pullId).not.toBe(view.pullId);
    manager.dispose();
  });

  it('a failed pull carries its code and message; a foreign error becomes IMAGE_PULL_FAILED', async () => {
    const { manager, pulls } = setup();
    manager.start('local', 'a/b:1');
    manager.start('local', 'a/b:2');
    pulls[0]!.reject(new AppError('IMAGE_NOT_FOUND', 'a/b:1 was not found on docker.io'));
    pulls[1]!.reject(new Error('socket hang up'));
    await new Promise((r) => setTimeout(r, 0));
    const [one, two] = manager.list();
    expect(one).toMatchObject({ phase: 'failed', error: { code: 'IMAGE_NOT_FOUND', message: 'a/b:1 was not found on docker.io' } });
    expect(two).toMatchObject({ phase: 'failed', error: { code: 'IMAGE_PULL_FAILED' } });
    expect(two!.error!.message).toContain('socket hang up');
    manager.dispose();
  });

  it('keeps ended pulls for a while, then forgets them (PULL_NOT_FOUND)', async () => {
    vi.useFakeTimers();
    const { manager, pulls } = setup({ keepMs: 60_000 });
    const view = manager.start('local', 'a/b:1');
    pulls[0]!.resolve();
    await vi.advanceTimersByTimeAsync(59_000);
    expect(manager.list().map((p) => p.pullId)).toEqual([view.pullId]);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(manager.list()).toEqual([]);
    await expect(manager.cancel(view.pullId)).rejects.toMatchObject({ code: 'PULL_NOT_FOUND' });
  });

  it('an unknown engine is ENGINE_NOT_FOUND, before any pull starts', () => {
    const { manager } = setup();
    expect(() => manager.start('nope', 'a/b:1')).toThrow(expect.objectContaining({ code: 'ENGINE_NOT_FOUND' }));
    expect(manager.list()).toEqual([]);
  });
});
