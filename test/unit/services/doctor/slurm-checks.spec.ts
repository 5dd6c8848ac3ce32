import { describe, expect, it } from 'vitest';
import { appliesTo } from '../../../../electron/services/doctor/check-plan';
import { withTimeout, type Check, type CheckContext } from '../../../../electron/services/doctor/check-kit';
import { jobOptionsOfProfile, parseGres, parseSinfo, slurmGpus, slurmHome, slurmLogin, slurmPartition, slurmSubmit, slurmTime } from '../../../../electron/services/doctor/slurm-checks';
import type { HostExecResult } from '../../../../electron/services/engines/container-engine';
import type { EngineHealth } from '../../../../electron/shared/schemas';
import { DoctorCheckId, ProfileInput, SLURM_DOCTOR_CHECKS, type DoctorCheck, type Profile } from '../../../../electron/shared/schemas-profiles';
import { expectWorded } from './doctor-words';

describe('sinfo as the Slurm doctor reads it', () => {
  it('gres strings of real clusters: typed, untyped, with socket affinity, beside other gres, none', () => {
    expect(parseGres('gpu:fake:2')).toEqual([{ type: 'fake', count: 2 }]);
    expect(parseGres('gpu:4')).toEqual([{ type: '', count: 4 }]);
    expect(parseGres('gpu:a100:4(S:0-1),shard:8')).toEqual([{ type: 'a100', count: 4 }]);
    expect(parseGres('gpu:a100:2(S:0),gpu:v100:1(S:1)')).toEqual([
      { type: 'a100', count: 2 },
      { type: 'v100', count: 1 },
    ]);
    expect(parseGres('(null)')).toEqual([]);
  });

  it('one row per partition and node state; the default marked, limits in seconds, unlimited as null', () => {
    const rows = parseSinfo('debug*|up|infinite|n/a|gpu:fake:2|1|mixed\ngpu|up|2-00:00:00|1:00:00|gpu:a100:4(S:0-1)|12|idle\nold|down|30:00|n/a|(null)|3|down*\n');
    expect(rows).toEqual([
      { partition: 'debug', isDefault: true, up: true, maxTime: null, defaultTime: null, gpus: [{ type: 'fake', count: 2 }], nodes: 1, state: 'mixed' },
      { partition: 'gpu', isDefault: false, up: true, maxTime: 2 * 86400, defaultTime: 3600, gpus: [{ type: 'a100', count: 4 }], nodes: 12, state: 'idle' },
      { partition: 'old', isDefault: false, up: false, maxTime: 30 * 60, defaultTime: null, gpus: [], nodes: 3, state: 'down*' },
    ]);
  });
});

describe('which checks a Slurm report lists', () => {
  it('a Slurm login node: the Slurm checks only; any other engine: none of them', () => {
    const slurm = DoctorCheckId.options.filter((id) => appliesTo(id, { product: null, rootless: null, mode: 'native', slurm: true }));
    expect(slurm).toEqual([...SLURM_DOCTOR_CHECKS]);
    const docker = DoctorCheckId.options.filter((id) => appliesTo(id, { product: 'docker', rootless: null, mode: 'container' }));
    expect(docker.some((id) => id.startsWith('slurm-'))).toBe(false);
    expect(docker).toContain('engine-reachable');
  });

  it('a profile without Slurm options is judged by the options Start would derive (native: its activate line, no GPUs)', () => {
    const profile = { ...ProfileInput.parse({ label: 'x', engineId: 'ssh-c', mode: 'native', image: 'ghcr.io/modelscope/agentjet:main', nativeActivate: 'source ~/v/bin/activate' }), id: 'x' };
    expect(jobOptionsOfProfile(profile as never)).toMatchObject({ partition: null, timeLimit: null, gpus: null, run: { mode: 'native', activate: 'source ~/v/bin/activate' } });
  });
});

/**
 * TEST DOUBLE: a login node answering sinfo, sbatch --test-only and the home-folder probe with what a
 * cluster in the case at hand prints (the real ones run in test/integration against the test bed's Slurm).
 */
function loginNode(answers: { sinfo?: string; sbatch?: HostExecResult; home?: HostExecResult; health?: Partial<EngineHealth> }, slurm: Record<string, unknown>): CheckContext {
  const profile = { ...ProfileInput.parse({ label: 'x', engineId: 's', mode: 'native', image: 'ghcr.io/modelscope/agentjet:main', slurm: { run: { mode: 'native', activate: '' }, ...slurm } }), id: 'x' } as Profile;
  const exec = async (script: string): Promise<HostExecResult> => {
    if (script.startsWith('sinfo')) return { code: 0, stdout: answers.sinfo ?? '', stderr: '' };
    if (script.includes('sbatch --test-only')) return answers.sbatch ?? { code: 0, stdout: '', stderr: 'sbatch: Job 243 to start at 2026-12-04T21:37:35 using 1 processors on nodes vm in partition debug\n' };
    return answers.home ?? { code: 0, stdout: '/dev/sda1 100000000 1000 90000000 1% /home\n', stderr: '' };
  };
  return {
    profile,
    where: 'server',
    hostLabel: 'login1 (alice@10.0.0.9)',
    engine: { summary: { endpoint: 'slurm://login1' }, wording: { product: 'Slurm' } } as never,
    health: async () => ({ id: 's', reachable: true, version: '22.05.8', apiVersion: null, error: null, ...answers.health }) as EngineHealth,
    product: async () => null,
    rootless: async () => null,
    info: async () => {
      throw new Error('no engine info on a login node');
    },
    image: async () => null,
    ownContainers: async () => [],
    exec,
  };
}

const run = (check: Check, c: CheckContext, id: DoctorCheckId): Promise<DoctorCheck> => withTimeout(id, () => check(c), 5_000);

describe('every Slurm finding as data, with words in en and zh-CN (issue 32)', () => {
  const SINFO = 'gpu*|up|2-00:00:00|1:00:00|gpu:a100:4|3|mixed\ncpu|up|infinite|n/a|(null)|8|idle\nold|down|1:00:00|n/a|(null)|1|drained\n';

  it('a request the cluster cannot meet: each problem said with its facts, and its fix', async () => {
    const tooBig = loginNode({ sinfo: SINFO }, { partition: 'gpu', timeLimit: '3-00:00:00', gpus: { flag: 'gres', count: 8, type: 'a100' } });
    const gpus = await run(slurmGpus, tooBig, 'slurm-gpus');
    expect(gpus.say).toEqual({ key: 'slurmTooManyGpus', params: { asked: '8 × a100', partition: 'gpu', most: 4, type: 'a100' } });
    const time = await run(slurmTime, tooBig, 'slurm-time');
    expect(time.say?.key).toBe('slurmTimeTooLong');
    const findings = [
      gpus,
      time,
      await run(slurmPartition, loginNode({ sinfo: SINFO }, { partition: 'nope' }), 'slurm-partition'),
      await run(slurmPartition, loginNode({ sinfo: SINFO }, { partition: 'old' }), 'slurm-partition'),
      await run(slurmPartition, loginNode({ sinfo: SINFO.replace('gpu*', 'gpu') }, {}), 'slurm-partition'),
      await run(slurmGpus, loginNode({ sinfo: SINFO }, { partition: 'cpu', gpus: { flag: 'gres', count: 1, type: null } }), 'slurm-gpus'),
      await run(slurmGpus, loginNode({ sinfo: SINFO }, { partition: 'gpu', gpus: { flag: 'gres', count: 1, type: 'h100' } }), 'slurm-gpus'),
      await run(slurmGpus, loginNode({ sinfo: SINFO }, {}), 'slurm-gpus'),
      await run(slurmTime, loginNode({ sinfo: SINFO }, { partition: 'gpu' }), 'slurm-time'),
      await run(slurmTime, loginNode({ sinfo: SINFO }, { partition: 'cpu' }), 'slurm-time'),
      await run(slurmHome, loginNode({ home: { code: 1, stdout: '', stderr: 'mkdir: cannot create directory: Permission denied' } }, {}), 'slurm-home'),
      await run(slurmHome, loginNode({ home: { code: 0, stdout: '/dev/sda1 100000 99000 5000 99% /home\n', stderr: '' } }, {}), 'slurm-home'),
    ];
    for (const finding of findings) {
      expect(finding.status, finding.say?.key).not.toBe('pass');
      expectWorded(finding);
    }
    // Slurm's own refusal and a login node that does not answer keep their text (the detail); the fix has words.
    const refused = await run(slurmSubmit, loginNode({ sbatch: { code: 1, stdout: '', stderr: 'sbatch: error: Batch job submission failed: Invalid account or account/partition combination specified' } }, {}), 'slurm-submit');
    const silent = await run(slurmLogin, loginNode({ health: { reachable: false, error: { code: 'ENGINE_UNREACHABLE', message: 'sinfo: error: slurm_load_partitions: Unable to contact slurm controller' } } }, {}), 'slurm-login');
    for (const finding of [refused, silent]) {
      expect(finding.status).toBe('fail');
      expectWorded(finding, ['slurmRefused', 'slurmLoginFailed']);
    }
  });

  it('a request that fits: each pass said with its facts', async () => {
    const fits = loginNode({ sinfo: SINFO }, { partition: 'gpu', timeLimit: '24:00:00', gpus: { flag: 'gres', count: 2, type: 'a100' } });
    const findings = [
      await run(slurmLogin, fits, 'slurm-login'),
      await run(slurmPartition, fits, 'slurm-partition'),
      await run(slurmPartition, loginNode({ sinfo: SINFO }, {}), 'slurm-partition'),
      await run(slurmGpus, fits, 'slurm-gpus'),
      await run(slurmTime, fits, 'slurm-time'),
      await run(slurmTime, loginNode({ sinfo: SINFO }, { partition: 'cpu', timeLimit: '24:00:00' }), 'slurm-time'),
      await run(slurmSubmit, fits, 'slurm-submit'),
      await run(slurmSubmit, loginNode({ sbatch: { code: 0, stdout: '', stderr: '' } }, {}), 'slurm-submit'),
      await run(slurmHome, fits, 'slurm-home'),
    ];
    for (const finding of findings) {
      expect(finding.status, finding.say?.key).toBe('pass');
      expectWorded(finding);
    }
    expect(findings[6]!.say).toEqual({ key: 'slurmAccepted', params: { time: '2026-12-04 21:37:35', nodes: 'vm', partition: 'debug' } });
  });
});
