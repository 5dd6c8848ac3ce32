import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error -- a plain .mjs script without types (npm test's lanes); its shape is checked by this test.
import { OWN_RUNS, testPlan } from '../../../scripts/test-lanes.mjs';

/**
 * `npm test` runs the integration and e2e files in several vitest runs side by side (scripts/test-lanes.mjs, issue 35).
 * Which run takes a file is decided by file lists and excludes, so a renamed or new file could run twice or never:
 * every integration and e2e file must run exactly once, every named file must exist, and the e2e files that run beside
 * the container lane must not reach the shared dockerd.
 */
const root = resolve(import.meta.dirname, '..', '..', '..');

interface Run {
  name: string;
  args: string[];
  env?: Record<string, string>;
  /** Runs once this lane's own runs are done. */
  waitFor?: string;
}
interface Plan {
  lanes: Record<string, { own: Run[]; then?: Run[] }>;
  floating: Run[];
  alone: Run;
}
const plan = (testPlan as (rendererCopy: string) => Plan)('/tmp/renderer-copy');
const runs: Run[] = [...Object.values(plan.lanes).flatMap((lane) => [...lane.own, ...(lane.then ?? [])]), ...plan.floating, plan.alone];

const specsOf = (project: string) =>
  readdirSync(join(root, 'test', project))
    .filter((name) => name.endsWith('.spec.ts'))
    .map((name) => `test/${project}/${name}`);

/** What vitest takes for these args: the projects, the positional filters (substrings of the path), the excludes. */
function selected(run: Run, project: string, file: string): boolean {
  const projects: string[] = [];
  const excludes: string[] = [];
  const filters: string[] = [];
  for (let i = 0; i < run.args.length; i += 1) {
    const arg = run.args[i]!;
    if (arg === '--project') projects.push(run.args[++i]!);
    else if (arg === '--exclude') excludes.push(run.args[++i]!);
    else if (!arg.startsWith('--')) filters.push(arg);
  }
  if (!projects.includes(project)) return false;
  if (filters.length > 0 && !filters.some((filter) => file.includes(filter))) return false;
  // The only glob in the plan is `**/*<word>*`; every other exclude is a path.
  return !excludes.some((pattern) => (pattern.startsWith('**/*') ? file.includes(pattern.slice(4, -1)) : pattern === file));
}

describe("npm test's lanes (scripts/test-lanes.mjs)", () => {
  it('names only files that exist', () => {
    const named = runs.flatMap((run) => run.args.filter((arg) => arg.startsWith('test/')));
    expect(named.length).toBeGreaterThan(10);
    const all = new Set([...specsOf('integration'), ...specsOf('e2e')]);
    expect(named.filter((file) => !all.has(file))).toEqual([]);
  });

  it('runs unit and renderer in the CPU lane, and the conformance suite once, as a floating run', () => {
    const projectsOf = (run: Run) => run.args.filter((_, i) => run.args[i - 1] === '--project');
    expect(plan.lanes['cpu']!.own.flatMap(projectsOf).sort()).toEqual(['renderer', 'unit']);
    expect(runs.filter((run) => projectsOf(run).includes('conformance')).map((run) => run.name)).toEqual(['conformance']);
    expect(plan.floating.map((run) => run.name)).toContain('conformance');
  });

  for (const project of ['integration', 'e2e']) {
    it(`runs every ${project} file exactly once`, () => {
      const wrong = specsOf(project)
        .map((file) => ({ file, runs: runs.filter((run) => selected(run, project, file)).map((run) => run.name) }))
        .filter((entry) => entry.runs.length !== 1);
      expect(wrong).toEqual([]);
    });
  }

  it('lets only the container lane sweep the shared test label; the timer, e2e, rootless and new-user runs sweep only their own', () => {
    const withApps = runs.filter((run) => run.args.includes('integration') || run.args.includes('e2e'));
    const sweeping = withApps.filter((run) => run.env?.['AGENTSWARM_TEST_SLURM_LANE'] !== '1');
    // A run of its own (AGENTSWARM_TEST_RUN): its containers carry their own test label, the only ones its cleanup removes.
    const ownLabel = sweeping.filter((run) => run.env?.['AGENTSWARM_TEST_RUN'] !== undefined);
    expect(ownLabel.map((run) => run.name).sort()).toEqual(['container-timers', 'e2e', 'e2e-new-user', 'e2e-rootless-podman']);
    const words = ownLabel.map((run) => run.env!['AGENTSWARM_TEST_RUN']);
    expect(new Set(words).size).toBe(words.length);
    expect(sweeping.filter((run) => !ownLabel.includes(run)).map((run) => run.name)).toEqual(['containers']);
    // Each run of its own is swept after a kept test bed's run (run-tests.mjs).
    expect([...(OWN_RUNS as string[])].sort()).toEqual([...words].sort());
  });

  it("runs the Slurm jobs on the rootless Podman user in a lane of their own, whose containers every other lane's cleanup spares", () => {
    const integrationFiles = (run: Run) => specsOf('integration').filter((file) => selected(run, 'integration', file));
    const usesRootless = (file: string) => readFileSync(join(root, file), 'utf8').includes('rootless');
    const podmanInSlurm = Object.values(plan.lanes)
      .flatMap((lane) => lane.own)
      .filter((run) => integrationFiles(run).some(usesRootless) && run.name !== 'containers');
    expect(podmanInSlurm.map((run) => run.name)).toEqual(['slurm-podman']);
    expect(plan.lanes['slurmPodman']!.own.map((run) => run.name)).toEqual(['slurm-podman']);
    // Beside the container lane's Podman files: their cleanups must leave a Slurm job's containers alone.
    const cleanup = readFileSync(join(root, 'test', 'support', 'test-app.ts'), 'utf8');
    expect(cleanup).toMatch(/filter\(\(c\) => !c\.Labels\?\.\['io\.agentswarm\.slurm-job'\]\)/);
    // The floating runs start beside everything: none of their files may use the rootless Podman user.
    expect(plan.floating.flatMap((run) => integrationFiles(run)).filter(usesRootless)).toEqual([]);
    for (const run of runs) if (run.waitFor) expect(Object.keys(plan.lanes), run.name).toContain(run.waitFor);
  });

  it('runs beside slurm-podman only the Slurm files that share the node, the others after it; the second node has a lane of its own, then the Slurm e2e files', () => {
    const [shared, exclusive] = plan.lanes['slurm']!.own;
    expect(shared!.waitFor).toBeUndefined();
    expect(exclusive!.waitFor).toBe('slurmPodman');
    expect(plan.lanes['slurm']!.then ?? []).toEqual([]);
    const files = (run: Run) => specsOf('integration').filter((file) => selected(run, 'integration', file));
    // Beside a running job: no file that takes the node down (a refused GPU request holds none; slurm-ends has one).
    for (const file of files(shared!)) expect(readFileSync(join(root, file), 'utf8'), file).not.toMatch(/state=down/i);
    // The second node's lane: its files and then the Slurm e2e files, each told the node, each naming the partition it
    // submits to (a job without one would land on the first node's default partition).
    const [second] = plan.lanes['slurmSecond']!.own;
    const after = plan.lanes['slurmSecond']!.then ?? [];
    expect(after.map((run) => run.name)).toEqual(['slurm-e2e']);
    for (const run of [second!, after[0]!]) expect(run.env?.['AGENTSWARM_TEST_SLURM_NODE'], run.name).toBe('second');
    const e2eFiles = specsOf('e2e').filter((file) => selected(after[0]!, 'e2e', file));
    expect(e2eFiles.length).toBeGreaterThan(0);
    for (const file of [...files(second!), ...e2eFiles]) expect(readFileSync(join(root, file), 'utf8'), file).toMatch(/\.slurm\.partition\b/);
    expect(files(shared!).length + files(exclusive!).length + files(second!).length + 1).toBe(specsOf('integration').filter((file) => file.includes('slurm')).length);
  });

  it("runs the e2e files on the test bed's rootless Podman user after slurm-podman (which starts containers there), in its lane", () => {
    const e2eFiles = (run: Run) => specsOf('e2e').filter((file) => selected(run, 'e2e', file));
    const onRootless = specsOf('e2e').filter((file) => readFileSync(join(root, file), 'utf8').includes('loadTestbedWithPodman('));
    expect(onRootless.length).toBeGreaterThan(0);
    const after = plan.lanes['slurmPodman']!.then ?? [];
    expect(after.map((run) => run.name)).toEqual(['e2e-rootless-podman']);
    expect(e2eFiles(after[0]!)).toEqual(onRootless);
  });

  it("runs the new user's first launch (the wizard is where a machine without swarm servers lands) alone", () => {
    const e2eFiles = specsOf('e2e').filter((file) => selected(plan.alone, 'e2e', file));
    expect(e2eFiles).toEqual(['test/e2e/getting-started.spec.ts']);
    expect(readFileSync(join(root, e2eFiles[0]!), 'utf8')).toContain("getByTestId('nav-wizard')");
  });

  it("runs beside the container lane only e2e files whose apps have no engine (the shared dockerd's servers stay off their pages)", () => {
    const beside = plan.floating.filter((run) => run.args.includes('e2e')).flatMap((run) => run.args.filter((arg) => arg.startsWith('test/e2e/')));
    expect(beside.length).toBeGreaterThan(0);
    for (const file of beside) {
      const source = readFileSync(join(root, file), 'utf8');
      const starts = source.split('startTestApp(').slice(1);
      expect(starts.length, file).toBeGreaterThan(0);
      for (const call of starts) expect(call.slice(0, call.indexOf(')')), file).toContain('dockerHost');
    }
  });
});
