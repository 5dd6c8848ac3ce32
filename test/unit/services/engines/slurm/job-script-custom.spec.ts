// The custom variant of the job script (the user's own lines: Apptainer, enroot, a site's wrapper): what the
// schema accepts, where the lines land in the script, and that bash accepts the result. Run for real against
// Slurm in test/integration/slurm-custom.spec.ts.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { slurmJobScript } from '../../../../../electron/services/engines/slurm/job-script';
import { SLURM_CUSTOM_PRESETS, SlurmJobIdentity, SlurmJobOptions } from '../../../../../electron/shared/schemas-slurm';

const identity = SlurmJobIdentity.parse({ profileId: 'qwen-7b', appVersion: '0.1.0' });

describe('custom lines in a Slurm job', () => {
  it('the schema wants the lines to pass $PORT, refuses empty ones, and takes each preset as it is', () => {
    const parse = (script: string) => SlurmJobOptions.safeParse({ run: { mode: 'custom', script } });
    expect(parse('apptainer exec x.sif ajet-swarm start').error?.issues[0]?.message).toMatch(/must pass "\$PORT" to the server/);
    expect(parse('   ').error?.issues[0]?.message).toMatch(/custom lines are empty/);
    expect(parse('x'.repeat(4001) + '$PORT').error?.issues[0]?.message).toMatch(/longer than 4000 characters/);
    expect(parse('run --port ${PORT}').success).toBe(true);
    for (const preset of Object.values(SLURM_CUSTOM_PRESETS)) expect(parse(preset).success, preset).toBe(true);
  });

  it('the lines run in a subshell after the port is chosen, are waited for, and get the TERM of scancel', () => {
    const script = slurmJobScript(identity, SlurmJobOptions.parse({ run: { mode: 'custom', script: SLURM_CUSTOM_PRESETS.apptainer } }));
    const portChosen = script.indexOf('mv -f "$ENDPOINT.tmp.$$" "$ENDPOINT"');
    const custom = script.indexOf('# --- The server, by your own lines');
    expect(portChosen).toBeGreaterThan(0);
    expect(custom).toBeGreaterThan(portChosen);
    expect(script.slice(custom)).toContain('(\n  apptainer exec --nv docker://ghcr.io/modelscope/agentjet:main \\\n    ajet-swarm start --swarm-port "$PORT"\n) &\nSERVER=$!');
    expect(script).toContain('The app does not test this variant.');
    expect(script).not.toContain('podman run');
    expect(script).not.toContain('command -v ajet-swarm');
    const syntax = spawnSync('bash', ['-n'], { input: script, encoding: 'utf8' });
    expect(syntax.stderr).toBe('');
    expect(syntax.status).toBe(0);
  });
});
