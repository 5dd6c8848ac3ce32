import { describe, expect, it } from 'vitest';
import { appliesTo } from '../../../../electron/services/doctor/check-plan';
import { jobOptionsOfProfile, parseGres, parseSinfo } from '../../../../electron/services/doctor/slurm-checks';
import { DoctorCheckId, ProfileInput, SLURM_DOCTOR_CHECKS } from '../../../../electron/shared/schemas-profiles';

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
