import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AppNotification } from '../../../../electron/shared/schemas-profiles';
import type { SwarmContainer, SwarmExit } from '../../../../electron/shared/schemas';
import type { ServerState } from '../../../../electron/shared/server-state';
import { EndTeller, endSentence } from '../../../../electron/services/server-state/end-teller';

const NOW = Date.parse('2026-12-05T10:00:00Z');

function ended(end: SwarmExit | null, over: Partial<ServerState> = {}): ServerState {
  const container = { id: 'c1', name: 'agentswarm-x', engineId: 'local', state: 'exited', finishedAt: end?.finishedAt ?? null } as SwarmContainer;
  return {
    key: 'local:c1',
    engineId: 'local',
    engineKind: 'local-docker',
    containerId: 'c1',
    phase: 'ended',
    phaseSince: end?.finishedAt ?? '2026-12-05T10:00:00Z',
    engineStatus: null,
    engineSince: null,
    problem: null,
    queue: null,
    end,
    container,
    status: null,
    actions: { stop: false, remove: true, logs: true },
    updatedAt: '2026-12-05T10:00:00Z',
    ...over,
  };
}

const crash: SwarmExit = { kind: 'crashed', code: 1, finishedAt: '2026-12-05T09:59:58Z', log: { lines: ['Traceback …', "ModuleNotFoundError: No module named 'verl'"], explains: true } };

describe('EndTeller: every end the user did not ask for, told once', () => {
  let dir: string;
  let told: AppNotification[];
  let logged: string[];
  // Every teller of a test, so its writes are done before the folder goes.
  let tellers: EndTeller[] = [];
  const teller = () => {
    const t = new EndTeller({
      notifier: { notify: (n) => told.push(n) },
      logger: { warn: (m) => logged.push(m) },
      dataDir: dir,
      nameOf: () => '"GPU box"',
      now: () => NOW,
    });
    tellers.push(t);
    return t;
  };

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'end-teller-'));
    told = [];
    logged = [];
  });
  afterEach(async () => {
    await Promise.all(tellers.map((t) => t.flushed()));
    tellers = [];
    await rm(dir, { recursive: true, force: true });
  });

  it('tells a crash with its code and the line that explains it, in the notification and the app log', async () => {
    await teller().observe(ended(crash));
    expect(told).toHaveLength(1);
    expect(told[0]).toMatchObject({ kind: 'server-ended', title: 'Swarm server ended: "GPU box"', end: { kind: 'crashed', code: 1, line: "ModuleNotFoundError: No module named 'verl'" } });
    expect(told[0]!.body).toBe(`"GPU box" crashed with exit code 1: ModuleNotFoundError: No module named 'verl'`);
    expect(logged).toEqual([`swarm server "GPU box" crashed with exit code 1: ModuleNotFoundError: No module named 'verl'`]);
  });

  it('says nothing for a stop the user asked for, nor before the end is known', async () => {
    const t = teller();
    await t.observe(ended({ ...crash, kind: 'stopped', code: 143 }));
    await t.observe(ended(null));
    expect(told).toEqual([]);
  });

  it('never tells one end twice: not on a new snapshot, not after a restart of the app', async () => {
    const first = teller();
    await first.observe(ended(crash));
    await first.observe(ended(crash, { updatedAt: 'later' }));
    await first.flushed();
    expect(JSON.parse(await readFile(join(dir, 'told-ends.json'), 'utf8'))).toEqual(['local:c1@2026-12-05T09:59:58Z']);
    const second = teller();
    await second.observe(ended(crash));
    expect(told).toHaveLength(1);
    // The same server's next end is news again.
    await second.observe(ended({ ...crash, finishedAt: '2026-12-05T09:59:59Z' }));
    await second.flushed();
    expect(told).toHaveLength(2);
    expect(logged, JSON.stringify(logged)).toHaveLength(2);
  });

  it('a Slurm end read again without its time (the job forgotten by Slurm, the app restarted) is not news again', async () => {
    const slurm = { engineKind: 'slurm' as const, containerId: '123', key: 'slurm-a:123' };
    const first = teller();
    await first.observe(ended({ ...crash, kind: 'time-limit', code: 143 }, slurm));
    await first.flushed();
    const second = teller();
    await second.observe(ended({ ...crash, kind: 'time-limit', code: 143, finishedAt: null }, slurm));
    // The other way round: first seen without a time, then with it.
    await second.observe(ended({ ...crash, finishedAt: null }, { ...slurm, containerId: '124', key: 'slurm-a:124' }));
    await second.observe(ended(crash, { ...slurm, containerId: '124', key: 'slurm-a:124' }));
    await second.flushed();
    expect(told.map((n) => n.containerId)).toEqual(['123', '124']);
  });

  it('names a Slurm job by its id, and an old end found at start is logged, not notified', async () => {
    const t = teller();
    await t.observe(ended({ ...crash, kind: 'node-failure', code: null }, { engineKind: 'slurm', containerId: '123', key: 'slurm-a:123' }));
    expect(told[0]).toMatchObject({ title: 'Slurm job 123 ended', body: '"GPU box" ended: its node failed' });
    await t.observe(ended({ ...crash, finishedAt: '2026-12-01T00:00:00Z' }));
    await t.flushed();
    expect(told).toHaveLength(1);
    expect(logged).toHaveLength(2);
  });

  it('words every end kind', () => {
    for (const kind of ['crashed', 'killed', 'out-of-memory', 'unexpected-stop', 'stopped-outside', 'time-limit', 'node-failure', 'preempted', 'cancelled'] as const) {
      expect(endSentence(kind, 1, null)).not.toBe('was stopped');
    }
  });
});
