// The doctor on a Slurm login node, through the app's handlers against the test bed's REAL Slurm 22.05 (one node
// `vm`, partition `debug`, 2 GPUs of type `fake`): only the Slurm checks are listed, and each one's verdict comes
// from the cluster (sinfo, and `sbatch --test-only`, which submits nothing). Needs `bash test/testbed/testbed.sh up`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SshConnection } from '../../electron/services/ssh/ssh-connection';
import { ProfileInput, SLURM_DOCTOR_CHECKS, type DoctorReport } from '../../electron/shared/schemas-profiles';
import type { SlurmJobOptionsInput } from '../../electron/shared/schemas-slurm';
import { startTestApp, type TestApp } from '../support/test-app';
import { connectTestbedServer } from '../support/testbed-server';
import { connectToTestbed } from '../support/testbed-ssh';
import { loadTestbed, loadTestbedWithSlurm } from '../testbed/testbed';

const tb = loadTestbedWithSlurm();
const run = `sd${process.pid.toString(36)}${Date.now().toString(36)}`;

describe('the doctor on a Slurm login node', () => {
  let app: TestApp;
  let conn: SshConnection;
  let engineId = '';
  const profileIds: string[] = [];

  beforeAll(async () => {
    conn = await connectToTestbed({}, tb);
    app = await startTestApp();
    engineId = await connectTestbedServer(app, `slurm-${run}`, tb, { docker: { engine: 'slurm', transport: 'socket', socketPath: '/var/run/docker.sock' } });
  });

  afterAll(async () => {
    await app?.dispose();
    await conn?.close();
  });

  async function doctor(slurm: SlurmJobOptionsInput): Promise<DoctorReport> {
    const activate = loadTestbed().native.sshUserActivate;
    const added = await app.handlers['profiles:add'](
      ProfileInput.parse({ label: `Doctor ${run} ${profileIds.length}`, engineId, mode: 'native', image: 'ghcr.io/modelscope/agentjet:main', port: 10086 + profileIds.length, nativeActivate: activate, slurm }),
    );
    profileIds.push(added.profile.id);
    return app.handlers['doctor:run']({ profileId: added.profile.id });
  }

  const byId = (report: DoctorReport) => Object.fromEntries(report.checks.map((c) => [c.id, c]));

  it('a job the cluster can run: only the Slurm checks, each passing, with when and where Slurm would start it', async () => {
    const report = await doctor({ partition: 'debug', timeLimit: '30', gpus: { flag: 'gres', count: 1 }, run: { mode: 'native', activate: null } });
    expect(report.checks.map((c) => c.id)).toEqual([...SLURM_DOCTOR_CHECKS]);
    const checks = byId(report);
    expect(checks['slurm-login']).toMatchObject({ status: 'pass', detail: expect.stringContaining(tb.slurm.version) });
    expect(checks['slurm-partition']).toMatchObject({ status: 'pass', detail: expect.stringMatching(/^Partition debug is up with 1 node\./) });
    expect(checks['slurm-gpus']).toMatchObject({ status: 'pass', detail: 'The job asks for 1 GPU; nodes of debug have up to 2.' });
    expect(checks['slurm-time']).toMatchObject({ status: 'pass', detail: expect.stringContaining('Time limit 30 (0:30:00); the partition allows any.') });
    expect(checks['slurm-submit']?.status).toBe('pass');
    expect(checks['slurm-submit']?.detail).toMatch(/it would start at \S+ \S+ on vm in partition debug \(sbatch --test-only; nothing was submitted\)\.$/);
    expect(checks['slurm-home']?.status).toBe('pass');
    expect(report.verdict).toBe('pass');
    // Issue 32: every finding also as data, for the renderer's words.
    expect(report.checks.map((c) => c.say?.key)).toEqual(['slurmAnswers', 'slurmPartitionUp', 'slurmGpusFit', 'slurmTimeOkAny', 'slurmAccepted', 'slurmHomeOk']);
    // --test-only submitted nothing: no job of the test user is in the partition's queue (the test bed's other node, in
    // a partition of its own, may run another file's jobs meanwhile).
    expect((await conn.exec(`squeue -h -u "$USER" -p ${tb.slurm.partition} -o %i`, { timeoutMs: 20_000 })).stdout.trim()).toBe('');
  });

  it('more GPUs than a node has: the GPU check names the most there is, and the scheduler refuses it too', async () => {
    const report = await doctor({ partition: 'debug', timeLimit: '30', gpus: { flag: 'gres', count: 3 }, run: { mode: 'native', activate: null } });
    const checks = byId(report);
    expect(checks['slurm-gpus']).toMatchObject({ status: 'fail', detail: 'The job asks for 3 GPUs, but the nodes of debug have at most 2: it could never start.', fix: expect.stringContaining('at most 2 GPUs') });
    expect(checks['slurm-submit']).toMatchObject({ status: 'fail', detail: expect.stringContaining('Requested node configuration is not available') });
    expect(report.verdict).toBe('fail');
    // Slurm's own refusal keeps its text; the words say the GPU problem and the fix.
    expect([checks['slurm-gpus']?.say?.key, checks['slurm-submit']?.say?.key]).toEqual(['slurmTooManyGpus', 'slurmRefused']);
  });

  it('a GPU type no node has, a partition that does not exist, no time limit: each said plainly', async () => {
    const typed = byId(await doctor({ partition: 'debug', timeLimit: '30', gpus: { flag: 'gpus', count: 1, type: 'a100' }, run: { mode: 'native', activate: null } }));
    expect(typed['slurm-gpus']).toMatchObject({ status: 'fail', detail: 'No node of debug has GPUs of type a100 (types there: fake).' });
    expect(typed['slurm-submit']?.status).toBe('fail');

    const nowhere = byId(await doctor({ partition: 'nope', gpus: null, run: { mode: 'native', activate: null } }));
    expect(nowhere['slurm-partition']).toMatchObject({ status: 'fail', detail: 'Partition nope does not exist on this cluster (sinfo lists: debug (default), second).' });
    expect(nowhere['slurm-submit']).toMatchObject({ status: 'fail', detail: expect.stringMatching(/Slurm refused the job: .*[Ii]nvalid partition/) });
    expect(nowhere['slurm-gpus']).toMatchObject({ status: 'warn', detail: expect.stringContaining('asks for no GPUs') });
    expect(nowhere['slurm-time']).toMatchObject({ status: 'warn', detail: expect.stringContaining('No time limit is set') });
  });
});
