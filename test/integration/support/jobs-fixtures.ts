import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { EventChannel } from '../../../electron/shared/contract';
import { JobStartRequest, type JobStartInput, type JobStart, type JobViewData } from '../../../electron/shared/schemas-jobs';
import { systemPython } from '../../support/python-env';

const run = promisify(execFile);

/** A fresh project folder under the temp dir, with the given files (path → text). */
export async function makeProject(files: Record<string, string> = {}): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'agentswarm-jobs-'));
  for (const [name, text] of Object.entries(files)) {
    await mkdir(join(dir, name, '..'), { recursive: true });
    await writeFile(join(dir, name), text);
  }
  return dir;
}

/**
 * TEST DOUBLE of an installed AgentJet client, for the runner's own tests (the real stub of
 * test/fixtures/ajet-stub belongs to the templates' tests): a package `ajet` with a `__version__`
 * in a folder of its own, made importable in a venv through a `.pth` file, as `pip install -e` does.
 */
export async function makeVenvWithMinimalAjet(projectDir: string, venvName = '.venv'): Promise<string> {
  const venv = join(projectDir, venvName);
  await run(systemPython(), ['-m', 'venv', '--without-pip', venv]);
  const pkgRoot = join(projectDir, '.fake-ajet');
  await mkdir(join(pkgRoot, 'ajet'), { recursive: true });
  await writeFile(join(pkgRoot, 'ajet', '__init__.py'), '# TEST DOUBLE: a stand-in for AgentJet\'s client (import check only)\n__version__ = "0.0.0-test"\n');
  const { stdout } = await run(join(venv, 'bin', 'python'), ['-c', 'import sysconfig; print(sysconfig.get_paths()["purelib"])']);
  await writeFile(join(stdout.trim(), 'fake_ajet.pth'), `${pkgRoot}\n`);
  return join(venv, 'bin', 'python');
}

export function startRequest(input: Partial<JobStartInput> & Pick<JobStartInput, 'cwd' | 'script'>): JobStart {
  return JobStartRequest.parse({ kind: 'script', python: systemPython(), ...input });
}

/** What JobEvents listens to: the app's EventHub, or a harness's RecordingSink. */
export interface EventSource {
  subscribe(listener: (channel: EventChannel, payload: unknown) => void): () => void;
}

/**
 * Every `jobs:changed` and `jobs:log-appended` event of an app, kept from the moment it is made, so
 * a test can wait for a job's end even when it came before the test knew the job's id.
 */
export class JobEvents {
  readonly changed: JobViewData[] = [];
  readonly appended: { jobId: string; total: number }[] = [];
  private readonly waiters = new Set<() => void>();
  readonly unsubscribe: () => void;

  constructor(hub: EventSource) {
    this.unsubscribe = hub.subscribe((channel, payload) => {
      if (channel === 'jobs:changed') this.changed.push(payload as JobViewData);
      else if (channel === 'jobs:log-appended') this.appended.push(payload as { jobId: string; total: number });
      else return;
      for (const wake of this.waiters) wake();
    });
  }

  /** The first snapshot of `jobId` that satisfies `predicate` (already seen, or the next ones). */
  until(jobId: string, predicate: (job: JobViewData) => boolean, timeoutMs = 30_000): Promise<JobViewData> {
    return new Promise((resolve, reject) => {
      const check = (): boolean => {
        const found = this.changed.find((job) => job.id === jobId && predicate(job));
        if (!found) return false;
        clearTimeout(timer);
        this.waiters.delete(wake);
        resolve(found);
        return true;
      };
      const wake = (): void => void check();
      const timer = setTimeout(() => {
        this.waiters.delete(wake);
        reject(new Error(`job ${jobId}: no matching jobs:changed within ${timeoutMs} ms; saw ${JSON.stringify(this.changed.filter((j) => j.id === jobId).map((j) => [j.state, j.failure?.code]))}`));
      }, timeoutMs);
      this.waiters.add(wake);
      check();
    });
  }

  ended(jobId: string, timeoutMs = 30_000): Promise<JobViewData> {
    return this.until(jobId, (job) => ['succeeded', 'failed', 'cancelled'].includes(job.state), timeoutMs);
  }
}
