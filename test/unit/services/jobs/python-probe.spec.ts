import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { probeInterpreter } from '../../../../electron/services/jobs/python-discovery';
import { systemPython } from '../../../support/python-env';

// Real python3: a project folder whose own files shadow standard modules must not break the probe
// (found by the wizard's integration test: "module 'json' has no attribute 'dumps'").
let dir = '';
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('probeInterpreter', () => {
  it('still reads the version when the project has its own json.py and platform.py, and imports ajet from the project folder', async () => {
    dir = await mkdtemp(join(tmpdir(), 'probe-'));
    await writeFile(join(dir, 'json.py'), 'raise SystemExit("the project json.py was imported")\n');
    await writeFile(join(dir, 'platform.py'), 'raise SystemExit("the project platform.py was imported")\n');
    await writeFile(join(dir, 'ajet.py'), '__version__ = "9.9.9-project"\n');
    const probed = await probeInterpreter(systemPython(), 'custom', { cwd: dir });
    expect(probed.problem).toBeNull();
    expect(probed.version).toMatch(/^Python 3\.\d+\.\d+$/);
    // The project's own ajet (a checkout of AgentJet in the project) counts, as it will for the job.
    expect(probed.ajet).toEqual({ installed: true, version: '9.9.9-project' });
  });
});
