// SlurmEngine's state mapping and event diffing. The login node is a TEST DOUBLE exec here (no Slurm in
// unit tests): it answers `squeue --local -u … -n … -O` with jobs in 22.05's shape and the labels-file listing with
// records; the real Slurm runs in test/integration/slurm-engine.spec.ts.
import { describe, expect, it } from 'vitest';
import type { SlurmJob } from '../../../../../electron/shared/schemas-slurm';
import { LABEL_MANAGED, LABEL_PORT, type ContainerSummary, type EngineHost, type HostExecResult } from '../../../../../electron/services/engines/container-engine';
import { SlurmEngine } from '../../../../../electron/services/engines/slurm/slurm-engine';
import { jobKeyOf, jobOptionsOf } from '../../../../../electron/services/engines/slurm/slurm-spec';
import { RECORD_MARK, containerStateOf, diffEvents, exitCodeOf, parseRecords, toContainerSummary, type SlurmJobRecord } from '../../../../../electron/services/engines/slurm/slurm-state';
import type { EngineWording } from '../../../../../electron/services/engines/engine-wording';
import { asLong, squeueOutput } from './squeue-lines';
import { SQUEUE_FIELDS_LONG } from '../../../../../electron/services/engines/slurm/slurm-parse';

const NOW = Date.parse('2026-12-04T12:00:00Z');

function job(over: Partial<SlurmJob>): SlurmJob {
  return {
    id: '41',
    name: 'agentswarm-p1',
    comment: 'agentswarm profile=p1 app=1.0.0',
    user: 'alice',
    partition: 'debug',
    state: 'RUNNING',
    reason: null,
    node: 'vm',
    exitCode: null,
    signal: null,
    timeLimitSeconds: 3600,
    timeLeftSeconds: 3000,
    submitTime: '2026-12-04T11:00:00.000Z',
    startTime: '2026-12-04T11:50:00.000Z',
    endTime: null,
    outputPath: null,
    gres: null,
    priority: 1,
    pendingPosition: null,
    ...over,
  };
}

const record = (jobId: string, labels: Record<string, string> = { [LABEL_MANAGED]: 'true', [LABEL_PORT]: '10086' }): SlurmJobRecord => ({
  jobId,
  name: 'agentswarm-p1',
  key: 'p1',
  labels,
  image: '',
  createdAt: '2026-12-04T11:00:00.000Z',
});

describe('Slurm job states as container states', () => {
  it('maps queued, running and every ended state', () => {
    expect(containerStateOf('PENDING')).toBe('created');
    expect(containerStateOf('RUNNING')).toBe('running');
    expect(containerStateOf('COMPLETING')).toBe('running');
    for (const s of ['COMPLETED', 'FAILED', 'CANCELLED', 'TIMEOUT', 'NODE_FAIL', 'OUT_OF_MEMORY']) expect(containerStateOf(s), s).toBe('exited');
  });

  it('says why a queued job waits, and its position', () => {
    const held = toContainerSummary(job({ state: 'PENDING', reason: 'JobHeldUser', startTime: null, node: null }), record('41'), NOW);
    expect(held).toMatchObject({ state: 'created', startedAt: null, exitCode: null, statusText: 'queued: held until started' });
    const waiting = toContainerSummary(job({ state: 'PENDING', reason: 'Resources', pendingPosition: 2 }), record('41'), NOW);
    expect(waiting.statusText).toBe('queued: Resources (position 2)');
    expect(waiting.queue).toEqual({ reason: 'Resources', position: 2 });
    expect(held.queue).toEqual({ reason: 'JobHeldUser', position: null });
    expect(toContainerSummary(job({}), record('41'), NOW).queue, 'a running job has no queue place').toBeUndefined();
  });

  it("names the scheduler's ends (time limit, node failure, preemption, scancel); a job's own end carries none", () => {
    const end = (state: string) => toContainerSummary(job({ state, exitCode: 0, signal: 15 }), record('41'), NOW).schedulerEnd;
    expect(['TIMEOUT', 'NODE_FAIL', 'PREEMPTED', 'CANCELLED'].map(end)).toEqual(['time-limit', 'node-failure', 'preempted', 'cancelled']);
    expect(['COMPLETED', 'FAILED', 'OUT_OF_MEMORY'].map(end)).toEqual([undefined, undefined, undefined]);
    // Slurm forgot it: the end its output's last line named.
    expect(toContainerSummary(null, record('40'), NOW, 143, 'NODE_FAIL')).toMatchObject({ schedulerEnd: 'node-failure', exitCode: 143 });
    expect(toContainerSummary(null, record('40'), NOW, 1, 'FAILED').schedulerEnd).toBeUndefined();
  });

  it('gives the exit code, the times and OOM of ended jobs, in Docker words', () => {
    const failed = toContainerSummary(job({ state: 'FAILED', reason: 'NonZeroExitCode', exitCode: 127, signal: 0, endTime: '2026-12-04T11:55:00.000Z' }), record('41'), NOW);
    expect(failed).toMatchObject({ state: 'exited', exitCode: 127, startedAt: '2026-12-04T11:50:00.000Z', finishedAt: '2026-12-04T11:55:00.000Z', oomKilled: false });
    expect(failed.statusText).toBe('Exited (127) 5 minutes ago [FAILED: NonZeroExitCode]');
    expect(exitCodeOf({ exitCode: 0, signal: 15 }), 'killed by SIGTERM: 128 + 15, as Docker says').toBe(143);
    expect(exitCodeOf({ exitCode: 143, signal: 0 })).toBe(143);
    expect(toContainerSummary(job({ state: 'OUT_OF_MEMORY', exitCode: 0, signal: 9 }), null, NOW)).toMatchObject({ oomKilled: true, exitCode: 137 });
    const running = toContainerSummary(job({}), record('41'), NOW);
    expect(running).toMatchObject({ state: 'running', finishedAt: null, exitCode: null, statusText: 'Up 10 minutes' });
  });

  it('keeps a job Slurm forgot while its folder holds the record: exited with what the output said', () => {
    const gone = toContainerSummary(null, record('40'), NOW, 143);
    expect(gone).toMatchObject({ id: '40', state: 'exited', exitCode: 143, labels: { [LABEL_PORT]: '10086' } });
    expect(gone.statusText).toContain('Slurm no longer lists the job');
  });

  it('reads the records of every folder, skipping one that is not JSON', () => {
    const out = `${RECORD_MARK}\n${JSON.stringify(record('41'))}\n${RECORD_MARK}\n{not json\n`;
    expect([...parseRecords(out).keys()]).toEqual(['41']);
  });
});

describe('events from two polls', () => {
  const summary = (id: string, over: Partial<SlurmJob>) => toContainerSummary(job({ id, ...over }), record(id), NOW);
  const map = (...cs: ContainerSummary[]) => new Map(cs.map((c) => [c.id, c]));

  it('start when a queued job runs, die with the exit code when it ends, destroy when removed', () => {
    const queued = summary('41', { state: 'PENDING', startTime: null });
    const running = summary('41', {});
    const cancelled = summary('41', { state: 'CANCELLED', exitCode: 143, signal: 0 });
    expect(diffEvents(map(queued), map(running), NOW).map((e) => e.action)).toEqual(['start']);
    const die = diffEvents(map(running), map(cancelled), NOW);
    expect(die).toEqual([{ containerId: '41', action: 'die', exitCode: 143, at: NOW, labels: record('41').labels }]);
    expect(diffEvents(map(cancelled), map(), NOW).map((e) => e.action)).toEqual(['destroy']);
    expect(diffEvents(map(running), map(running), NOW), 'nothing changed: no event').toEqual([]);
  });

  it('a job that started and failed between two polls gets start and die; OOM comes before its die', () => {
    const queued = summary('41', { state: 'PENDING', startTime: null });
    const failed = summary('41', { state: 'FAILED', exitCode: 1, signal: 0 });
    expect(diffEvents(map(queued), map(failed), NOW).map((e) => [e.action, e.exitCode])).toEqual([['start', null], ['die', 1]]);
    const oom = summary('41', { state: 'OUT_OF_MEMORY', exitCode: 0, signal: 9 });
    expect(diffEvents(map(summary('41', {})), map(oom), NOW).map((e) => e.action)).toEqual(['oom', 'die']);
  });
});

describe('specs as jobs', () => {
  it('keys the job folder by profile, else by a Slurm-safe name', () => {
    expect(jobKeyOf({ name: 'whatever', labels: { 'io.agentswarm.profile': 'team-a' } })).toBe('team-a');
    expect(jobKeyOf({ name: 'agentswarm-swarm-10086-A1b2', labels: {} })).toBe('swarm-10086-a1b2');
    expect(() => jobKeyOf({ name: '___', labels: {} })).toThrow(/cannot name a Slurm job/);
  });

  it('defaults the job options from the spec: native with its activate line, GPU ids as a count', () => {
    const spec = { name: 'x', image: 'img', cmd: [], env: {}, labels: {}, network: { mode: 'host' as const }, init: true, shm: { mode: 'ipc-host' as const }, binds: [] };
    expect(jobOptionsOf({ ...spec, runtime: 'native', nativeActivate: 'source ~/v/bin/activate', gpus: { mode: 'ids', ids: ['0', '1'] } })).toMatchObject({
      run: { mode: 'native', activate: 'source ~/v/bin/activate' },
      gpus: { flag: 'gres', count: 2, type: null },
      timeLimit: null,
    });
    expect(jobOptionsOf({ ...spec, gpus: { mode: 'none' } })).toMatchObject({ run: { mode: 'podman', image: 'img' }, gpus: null });
    expect(() => jobOptionsOf({ ...spec, cmd: ['python', 'x.py'], gpus: { mode: 'none' } }), 'the script runs ajet-swarm itself').toThrow(/only \(ajet-swarm start\)/);
    expect(() => jobOptionsOf({ ...spec, image: '', gpus: { mode: 'none' } })).toThrow(/cannot be built from this spec/);
  });
});

describe('SlurmEngine over a TEST DOUBLE login node', () => {
  const squeueJob = (id: number, state: string, extra: Partial<SlurmJob> = {}): SlurmJob =>
    job({ id: String(id), state, node: state === 'PENDING' ? null : 'vm', exitCode: /^(RUNNING|PENDING)$/.test(state) ? null : 0, signal: 0, endTime: null, ...extra });
  /** `scontrol -o show job` of a job, or Slurm's answer for one it does not know. */
  const scontrolOf = (j: SlurmJob | undefined): HostExecResult =>
    j
      ? { code: 0, stdout: `JobId=${j.id} JobName=${j.name} UserId=${j.user}(1000) JobState=${j.state} Reason=${j.reason ?? 'None'} ExitCode=${j.exitCode ?? 0}:${j.signal ?? 0} Partition=debug NodeList=${j.node ?? '(null)'} Comment=${j.comment}\n`, stderr: '' }
      : { code: 1, stdout: '', stderr: 'slurm_load_jobs error: Invalid job id specified\n' };

  function engineWith(jobs: SlurmJob[], records: SlurmJobRecord[], more: (script: string) => HostExecResult | null = () => null, startWaitMs?: number) {
    const scripts: string[] = [];
    // TEST DOUBLE: what a login node with Slurm 22.05 answers to the scripts the engine sends.
    const host: EngineHost = {
      kind: 'ssh',
      label: 'login (alice@test)',
      exec: (script: string): Promise<HostExecResult> => {
        scripts.push(script);
        const answer = more(script);
        if (answer) return Promise.resolve(answer);
        if (script === 'id -un') return Promise.resolve({ code: 0, stdout: 'alice\n', stderr: '' });
        // The user's jobs of the names asked (22.05 filters by user in slurmctld, by name in squeue itself).
        const names = /squeue --local -u 'alice' -n '([^']*)' -h -t all -O /.exec(script);
        if (names) return Promise.resolve({ code: 0, stdout: asLong(squeueOutput(jobs.filter((j) => j.user === 'alice' && names[1]!.split(',').includes(j.name)))), stderr: '' });
        if (/squeue --local -h -t PD( -p '[^']*')? -o /.test(script)) return Promise.resolve({ code: 0, stdout: squeueOutput(jobs.filter((j) => j.state === 'PENDING')), stderr: '' });
        const shown = /scontrol --local -o show job (\d+)$/.exec(script);
        if (shown) return Promise.resolve(scontrolOf(jobs.find((j) => j.id === shown[1])));
        if (script.includes('labels.json; do')) return Promise.resolve({ code: 0, stdout: records.map((r) => `${RECORD_MARK}\n${JSON.stringify(r)}\n`).join(''), stderr: '' });
        if (script === 'sinfo --version') return Promise.resolve({ code: 0, stdout: 'slurm-wlm 22.05.8\n', stderr: '' });
        return Promise.resolve({ code: 1, stdout: '', stderr: `unexpected script: ${script}` });
      },
    };
    const engine = new SlurmEngine({
      summary: { id: 'slurm-1', kind: 'slurm', label: 'cluster', endpoint: 'ssh://login' },
      wording: {} as EngineWording,
      host,
      openChannel: () => Promise.reject(new Error('no tunnels in this test')),
      appVersion: '1.0.0',
      now: () => NOW,
      ...(startWaitMs !== undefined ? { startWaitMs } : {}),
    });
    return { engine, scripts };
  }

  it('lists our jobs and the forgotten ones with records, filtered by label, in two execs plus the user', async () => {
    const { engine, scripts } = engineWith(
      [squeueJob(41, 'RUNNING'), squeueJob(42, 'PENDING', { reason: 'Resources' }), squeueJob(43, 'RUNNING', { user: 'bob' }), squeueJob(44, 'RUNNING', { comment: 'not ours', name: 'other' })],
      [record('41'), record('40'), record('42', { [LABEL_MANAGED]: 'true', [LABEL_PORT]: '10087' })],
    );
    const all = await engine.listContainers({ [LABEL_MANAGED]: 'true' });
    expect(all.map((c) => [c.id, c.state]).sort()).toEqual([['40', 'exited'], ['41', 'running'], ['42', 'created']]);
    expect(all.find((c) => c.id === '42')?.statusText).toBe('queued: Resources (position 1)');
    expect((await engine.listContainers({ [LABEL_PORT]: '10086' })).map((c) => c.id).sort()).toEqual(['40', '41']);
    expect(scripts.filter((s) => s === 'id -un'), 'the login user is asked once').toHaveLength(1);
  });

  it('treats an ended job without its record as removed (Slurm lists it for MinJobAge after rm); asks about our job names only', async () => {
    const { engine, scripts } = engineWith([squeueJob(45, 'CANCELLED', { exitCode: 0, signal: 15 }), squeueJob(46, 'RUNNING')], [record('46')]);
    expect((await engine.listContainers({})).map((c) => c.id)).toEqual(['46']);
    expect(scripts.filter((s) => s.includes('squeue'))).toEqual([`SLURM_TIME_FORMAT=%s squeue --local -u 'alice' -n 'agentswarm-p1' -h -t all -O '${SQUEUE_FIELDS_LONG}'`]);
  });

  it('no job folder of ours: no squeue at all', async () => {
    const { engine, scripts } = engineWith([squeueJob(46, 'RUNNING')], []);
    expect(await engine.listContainers({})).toEqual([]);
    expect(await engine.jobViews()).toEqual([]);
    expect(scripts.filter((s) => /squeue|scontrol/.test(s))).toEqual([]);
  });

  it('a job Slurm forgot (MinJobAge) but whose folder is kept: exited with the code its output reports', async () => {
    const { engine } = engineWith([], [record('40')], (script) => {
      if (script.includes('scontrol -o show job 40')) return { code: 1, stdout: '', stderr: 'slurm_load_jobs error: Invalid job id specified\n' };
      if (script.includes('tail -n 20')) return { code: 0, stdout: '2026-12-04T11:59:00Z [agentswarm] stop requested (SIGTERM)\n2026-12-04T11:59:00Z [agentswarm] ajet-swarm exited with code 143\n', stderr: '' };
      return null;
    });
    expect(await engine.inspectContainer('40')).toMatchObject({ id: '40', state: 'exited', exitCode: 143 });
  });

  it('a failed start leaves nothing: the held job is cancelled and its folder removed', async () => {
    const { engine, scripts } = engineWith([squeueJob(41, 'PENDING', { reason: 'JobHeldUser' })], [record('41')], (script) => {
      if (script === 'scontrol release 41') return { code: 1, stdout: '', stderr: 'scontrol: error: Slurm controller not responding\n' };
      if (script === 'scancel 41' || script.includes('rm -rf')) return { code: 0, stdout: '', stderr: '' };
      return null;
    });
    await expect(engine.startContainer('41')).rejects.toMatchObject({ code: 'INTERNAL' });
    expect(scripts).toContain('scancel 41');
    expect(scripts.find((s) => s.includes('rm -rf'))).toContain("'agentswarm-p1'");
  });

  it('a released job still queued after the short wait is kept: start returns, nothing cancelled or removed', async () => {
    const { engine, scripts } = engineWith([squeueJob(41, 'PENDING', { reason: 'Resources' })], [record('41')], (script) => {
      if (script === 'scontrol release 41') return { code: 0, stdout: '', stderr: '' };
      return null;
    }, 0);
    await engine.startContainer('41');
    expect(scripts).toContain('scontrol release 41');
    expect(scripts).not.toContain('scancel 41');
    expect(scripts.some((s) => s.includes('rm -rf'))).toBe(false);
    expect(await engine.inspectContainer('41')).toMatchObject({ state: 'created', statusText: 'queued: Resources (position 1)' });
  });

  it('after its own start the engine asks anew: an inspect does not see the held job of before', async () => {
    const jobs = [squeueJob(41, 'PENDING', { reason: 'JobHeldUser' })];
    const { engine } = engineWith(jobs, [record('41')], (script) => {
      if (script === 'scontrol release 41') {
        jobs[0] = squeueJob(41, 'RUNNING');
        return { code: 0, stdout: '', stderr: '' };
      }
      if (script.includes('@@warning')) return { code: 0, stdout: '@@warning\n', stderr: '' };
      return null;
    }, 0);
    expect((await engine.inspectContainer('41')).state).toBe('created');
    await engine.startContainer('41');
    expect((await engine.inspectContainer('41')).state).toBe('running');
  });

  it('a released job Slurm does not answer about (a busy controller) is kept: start returns, nothing cancelled or removed', async () => {
    const { engine, scripts } = engineWith([squeueJob(41, 'RUNNING')], [record('41')], (script) => {
      if (script === 'scontrol release 41') return { code: 0, stdout: '', stderr: '' };
      if (script.includes('show job 41')) return { code: 1, stdout: '', stderr: 'slurm_load_jobs error: Socket timed out on send/recv operation\n' };
      return null;
    }, 0);
    await engine.startContainer('41');
    expect(scripts.some((s) => s.includes('show job 41')), 'it asked').toBe(true);
    expect(scripts).not.toContain('scancel 41');
    expect(scripts.some((s) => s.includes('rm -rf'))).toBe(false);
  });

  it('a released job running without its endpoint yet is kept too (its server is still choosing a port)', async () => {
    const { engine, scripts } = engineWith([squeueJob(41, 'RUNNING')], [record('41')], (script) => {
      if (script === 'scontrol release 41') return { code: 0, stdout: '', stderr: '' };
      if (script.includes('@@warning')) return { code: 0, stdout: '@@warning\n', stderr: '' };
      return null;
    }, 0);
    await engine.startContainer('41');
    expect(scripts.some((s) => s.includes('@@warning')), 'it looked for the endpoint').toBe(true);
    expect(scripts).not.toContain('scancel 41');
  });

  it('a released job Slurm will never run (BadConstraints) is cancelled and removed; the error says why', async () => {
    const { engine, scripts } = engineWith([squeueJob(41, 'PENDING', { reason: 'BadConstraints' })], [record('41')], (script) => {
      if (script === 'scontrol release 41' || script === 'scancel 41' || script.includes('rm -rf')) return { code: 0, stdout: '', stderr: '' };
      return null;
    }, 60_000);
    await expect(engine.startContainer('41')).rejects.toMatchObject({ code: 'CONTAINER_START_FAILED', message: expect.stringMatching(/Slurm job 41 cannot start \(Slurm will not run it as submitted: BadConstraints\); it was cancelled/) });
    expect(scripts).toContain('scancel 41');
    expect(scripts.find((s) => s.includes('rm -rf'))).toContain("'agentswarm-p1'");
  });

  it('a released job that ended at once is kept (its exit code and output stay visible), not cancelled', async () => {
    const { engine, scripts } = engineWith([squeueJob(41, 'FAILED', { exitCode: 127 })], [record('41')], (script) => {
      if (script === 'scontrol release 41') return { code: 0, stdout: '', stderr: '' };
      return null;
    }, 0);
    await engine.startContainer('41');
    expect(scripts).not.toContain('scancel 41');
    expect(scripts.some((s) => s.includes('rm -rf'))).toBe(false);
  });

  it('two creates for one folder at once: one job, the other refused (the race between check and submit)', async () => {
    const { engine, scripts } = engineWith([], [], (script) => {
      if (script.includes('sbatch --parsable --hold job.sh')) return { code: 0, stdout: '77\n', stderr: '' };
      if (script.includes('labels.json.tmp')) return { code: 0, stdout: '', stderr: '' };
      return null;
    });
    const spec = { name: 'agentswarm-p1', image: '', cmd: ['ajet-swarm', 'start', '--swarm-port', '10086'], env: {}, labels: {}, network: { mode: 'host' as const }, init: true, gpus: { mode: 'none' as const }, shm: { mode: 'ipc-host' as const }, binds: [], runtime: 'native' as const };
    const [first, second] = await Promise.allSettled([engine.createContainer(spec), engine.createContainer(spec)]);
    expect(first).toEqual({ status: 'fulfilled', value: '77' });
    expect(second).toMatchObject({ status: 'rejected', reason: { code: 'CONTAINER_CONFLICT' } });
    expect(scripts.filter((s) => s.includes('sbatch'))).toHaveLength(1);
  });

  it('refuses a URL for a port whose job waits in the queue, saying why', async () => {
    const { engine } = engineWith([squeueJob(42, 'PENDING', { reason: 'Resources' })], [record('42')]);
    await expect(engine.urlForHostPort(10086)).rejects.toThrow(/42 for port 10086 waits in the queue \(queued: Resources/);
  });

  it('reports the Slurm version without a container product', async () => {
    const { engine } = engineWith([], []);
    expect(await engine.health()).toEqual({ id: 'slurm-1', reachable: true, version: '22.05.8', apiVersion: null, product: null, error: null });
    expect(await engine.isHostPortFree()).toBe(true);
  });
});
