// SlurmJobOptions: what may reach an #SBATCH line or a shell word of the job script, and the messages
// that name the fix. Option injection (a value starting with "-", spaces, quotes, `$`, newlines) is refused.
import { describe, expect, it } from 'vitest';
import { SLURM_DEFAULT_WARN_SECONDS, SlurmJobOptions, slurmTimeLimitSeconds } from '../../../../../electron/shared/schemas-slurm';

const native = { mode: 'native' as const, activate: null };

function issues(input: unknown): string[] {
  const parsed = SlurmJobOptions.safeParse(input);
  return parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
}

describe('Slurm time limits', () => {
  it.each([
    ['120', 7200],
    ['2:00:00', 7200],
    ['0:30:00', 1800],
    ['1-12:00:00', 129600],
    ['1-12', 129600],
    ['2-0:30', 174600],
    [' 90 ', 5400],
  ])('%s is %i seconds', (text, seconds) => {
    expect(slurmTimeLimitSeconds(text)).toBe(seconds);
    expect(issues({ run: native, timeLimit: text, warnBeforeLimitSeconds: 60 })).toEqual([]);
  });

  it('refuses minutes:seconds, which users read as hours:minutes, and asks for the long form', () => {
    expect(issues({ run: native, timeLimit: '1:30' })).toEqual([expect.stringContaining('write hours as 1:30:00')]);
  });

  it.each(['abc', '1h', '-5', '1:60:00', '1-24:00:00', '', '--wrap=id'])('refuses %j with the accepted forms', (text) => {
    expect(issues({ run: native, timeLimit: text }).join('\n')).toMatch(/minutes \(e\.g\. 120\)|hours:minutes:seconds/);
  });

  it('refuses less than a minute and a warning that would come before the start', () => {
    expect(issues({ run: native, timeLimit: '0' })).toEqual([expect.stringContaining('at least 1 minute')]);
    expect(issues({ run: native, timeLimit: '5', warnBeforeLimitSeconds: 300 })).toEqual([
      expect.stringMatching(/^warnBeforeLimitSeconds: .*shorter than the time limit \(300 s\)/),
    ]);
  });
});

describe('Slurm names: never an option injection', () => {
  it.each(['-p', '--wrap=id', 'gpu --wrap=id', 'gpu;id', '$(id)', 'gpu\n#SBATCH --wrap=id', "gpu'", 'gpu"', '.hidden', 'a'.repeat(65)])(
    'refuses account/QoS %j, naming where to copy a valid one from',
    (value) => {
      for (const field of ['account', 'qos']) {
        expect(issues({ run: native, [field]: value }).join('\n')).toMatch(/sinfo|sacctmgr|64 characters/);
      }
    },
  );

  it('accepts the names sites use, and partition lists', () => {
    const parsed = SlurmJobOptions.parse({ run: native, partition: 'gpu,gpu-long', account: 'proj_123', qos: 'normal+', gpus: { flag: 'gpus', count: 2, type: 'nvidia_a100-sxm4-80gb' } });
    expect(parsed).toMatchObject({ partition: 'gpu,gpu-long', account: 'proj_123', qos: 'normal+', gpus: { flag: 'gpus', count: 2, type: 'nvidia_a100-sxm4-80gb' } });
  });

  it.each(['-gpu', 'gpu,-x', 'gpu,,long', 'gpu long'])('refuses partition %j', (value) => {
    expect(issues({ run: native, partition: value })).toEqual([expect.stringMatching(/^partition: .*sinfo/)]);
  });

  it('refuses a GPU type or count that is not one', () => {
    expect(issues({ run: native, gpus: { flag: 'gres', count: 1, type: 'a100:2 --wrap=id' } }).join()).toMatch(/GPU type/);
    expect(issues({ run: native, gpus: { flag: 'gres', count: 0 } }).join()).toMatch(/turn GPUs off/);
    expect(issues({ run: native, gpus: { flag: 'nvidia', count: 1 } })).not.toEqual([]);
  });
});

describe('how the server runs', () => {
  it('takes a one-line activate line as the user wrote it (it is shell by design)', () => {
    const activate = 'module load cuda/12 && source ~/venvs/ajet/bin/activate; export X="$HOME"';
    expect(SlurmJobOptions.parse({ run: { mode: 'native', activate } }).run).toEqual({ mode: 'native', activate });
  });

  it('refuses a multi-line activate line, saying how to join it', () => {
    expect(issues({ run: { mode: 'native', activate: 'source a\nsource b' } })).toEqual([expect.stringContaining('join commands with && or ;')]);
  });

  it('refuses an image reference with shell characters', () => {
    expect(issues({ run: { mode: 'podman', image: 'ghcr.io/x/y:1; id' } })).not.toEqual([]);
    expect(SlurmJobOptions.parse({ run: { mode: 'podman', image: 'ghcr.io/modelscope/agentjet:main' } }).run).toEqual({ mode: 'podman', image: 'ghcr.io/modelscope/agentjet:main' });
  });

  it('defaults: cluster defaults everywhere, a 300 s warning', () => {
    expect(SlurmJobOptions.parse({ run: native })).toEqual({
      partition: null,
      account: null,
      qos: null,
      timeLimit: null,
      gpus: null,
      cpusPerTask: null,
      memoryGb: null,
      warnBeforeLimitSeconds: SLURM_DEFAULT_WARN_SECONDS,
      workDir: null,
      run: native,
    });
    expect(SLURM_DEFAULT_WARN_SECONDS).toBe(300);
  });
});
