// Where `npm test` (scripts/run-tests.mjs) runs each test file, and why (issue 35: an idle CI took 1,362 s, of which
// the container lane's 728 s and then e2e alone 515 s were the critical path).
//
// Seven lanes start together, each one vitest run after another:
// - cpu: unit + renderer, niced (CPU-bound; the other lanes mostly wait on daemons and timers).
// - slurm: the Slurm integration files that share the node (SLURM_SHARED), then (once slurmPodman's is done) those
//   that need it to themselves.
// - slurmSecond: on the test bed's second Slurm node (its own partition), Slurm files that need a node to themselves,
//   THEN the Slurm e2e files (SLURM_SECOND_NODE).
// - slurmPodman: the Slurm job with its server in rootless Podman, beside the shared Slurm files, THEN the e2e file
//   on the rootless Podman user (whose containers that job starts too).
// - containers: the integration files that start containers on the shared dockerd and Podman (one at a time).
// - timers: the container files that mostly wait on the app's timers, as a test run of their own (CONTAINER_TIMERS).
// - e2e: the e2e files that use the shared dockerd, as a test run of their own (E2E_RUN).
// A lane whose own runs (and THEN runs) are done takes the next FLOATING run (container-free files; longest first),
// so the idle cores of a finished lane shorten the others. The one e2e file that needs a machine with no swarm server
// (a new user's first launch) runs ALONE, once the container, timer and e2e lanes' own runs are done. Runs of their
// own (AGENTSWARM_TEST_RUN) give their containers their own test label, so no run's cleanup sweeps another's
// containers; every assertion of theirs names their own containers, profiles and rows (never a whole engine's count).
//
// Every other run sets AGENTSWARM_TEST_SLURM_LANE: their test apps then leave the shared daemons' test containers alone
// on dispose (test/support/test-app.ts), as they run beside the files that own those containers.

const spec = (dir) => (name) => `test/${dir}/${name}.spec.ts`;
const NO_SWEEP = { AGENTSWARM_TEST_SLURM_LANE: '1' };

/** Integration files that use only the test bed's Slurm node (and the login node's sshd): path contains this. */
const SLURM_FILES = 'slurm';
/**
 * The worker pool on this computer and an sshd of its own (no Slurm, no container, the fake swarm in-process): it
 * floats. It was on the Slurm lane, 42 s of the lane's critical path (idle CI 2026-12-05).
 */
const WORKERS_POOL = ['workers-pool'].map(spec('integration'));
/**
 * e2e on the real Slurm node (server-truth-slurm takes it down): after the second node's Slurm integration files, in
 * their lane.
 * Their servers run natively in Slurm jobs; their assertions name their own jobs, profiles and server rows (never a
 * count of servers), and they choose their server's place on the Servers page (its default place is wherever a swarm
 * server runs, which beside e2e alone is the local engine: loaded run L10), so the other e2e files' containers on
 * their Servers and fleet pages do not matter.
 */
const SLURM_E2E = ['server-truth-slurm', 'slurm-servers'].map(spec('e2e'));
/**
 * The Slurm job running its server in rootless Podman: a lane of its own, beside the Slurm files that hold at most one
 * job at a time (SLURM_SHARED): the node has 2 CPUs and 2 GPUs, each of the two runs holds one job of one CPU (and at
 * most one GPU). It failed twice at the lanes' start (CI 2026-12-05 and idle CI-T, 6 of 6 each), both times because its
 * tunnel listened on the port its job had chosen on this machine and forwarded into itself (fixed in the spec:
 * test/support/slurm-test-ports.ts), not for the load or the company. Its job containers carry the test label, and
 * every cleanup of the other lanes spares containers inside Slurm jobs (test/support/test-app.ts), so the container
 * lane's Podman files may run beside it.
 */
const SLURM_PODMAN = spec('integration')('slurm-podman');
/**
 * Slurm files whose tests hold at most one job of one CPU and no GPU at a time, and never take the node down: they run
 * beside slurm-podman. The other Slurm files need the node to themselves (both GPUs taken, a node DOWN, a job array
 * beside a swarm job, GPUs inside the allocation): they run after both, or on the second node (SLURM_SECOND_NODE).
 */
const SLURM_SHARED = ['slurm-ends', 'slurm-app', 'slurm-engine', 'slurm-custom', 'slurm-doctor', 'slurm-diagnostics'].map(spec('integration'));
/**
 * Slurm files that need a node to themselves (both GPUs taken, the node DOWN, both CPUs held) and name the node and
 * partition they use (loadTestbedWithSlurm): they run on the test bed's second node (AGENTSWARM_TEST_SLURM_NODE=second,
 * test/testbed/slurm.sh), a lane beside the first node's. One node took them all one after another: the Slurm chain
 * (three time limits of 60 to 90 s each among them) was the run's critical path, 420 to 455 s of an idle CI (CI-AQ,
 * CI-AR). Here the integration files, THEN the Slurm e2e files (SLURM_E2E). The first node keeps the files that
 * submit to the default partition (testbed-slurm), read the whole queue (slurm-client) or take the node down
 * (slurm-scheduler-ends, after slurm-podman).
 */
const SLURM_SECOND_NODE = ['slurm-queue', 'fleet-slurm', 'workers-slurm'].map(spec('integration'));
const ON_SECOND_NODE = { AGENTSWARM_TEST_SLURM_NODE: 'second' };
/**
 * Integration files that start no container on the shared daemons (an in-process fake swarm server, the dry run, the
 * job runner, sshd only). Their apps may see the container lane's containers; none of these files asserts on a
 * container list (the dry run's list is its own engine's).
 */
/**
 * Container files that mostly wait on the app's timers (auto-stop's minutes, the
 * alerts' and the monitor's pace): 125 of the container lane's 278 s (idle CI 2026-12-06; runs.spec's 23 s stay in
 * the container lane, so the two end together). They run in a lane of their own beside the container lane, as another
 * test run (AGENTSWARM_TEST_RUN): their containers carry their own test label, so neither run's cleanup sweeps the
 * other's containers. Their assertions name their own containers and profiles, and the container lane's name theirs:
 * none counts the servers, statuses, runs or tunnels of a whole engine. None uses the rootless Podman user.
 */
// Not gpu-sampling: in this lane it twice never sampled the SSH host (loaded run L19, idle CI-AP: nvidia-smi never
// called over SSH); it passed in the container lane (L16–L18), which ends well before the Slurm chain, so it runs there.
const CONTAINER_TIMERS = ['fleet-auto-stop', 'training-monitor', 'fleet-alerts'].map(spec('integration'));
/** A lane's test run: its word after the checkout's own, when that is set. */
const runWord = (word) => (process.env.AGENTSWARM_TEST_RUN ? `${process.env.AGENTSWARM_TEST_RUN}.${word}` : word);
const TIMERS_RUN = runWord('timers');
/**
 * The e2e files on the shared dockerd, beside the container and timer lanes (e2e alone after them was 280-300 s of the
 * run's critical path: idle CI 2026-12-06). Tried side by side, only getting-started failed: a new user's first
 * launch lands on the wizard only where no swarm server runs, so it runs alone (E2E_NEW_USER).
 */
const E2E_RUN = runWord('e2e');
/** The e2e file on the rootless Podman user: a run of its own beside the e2e lane. */
const ROOTLESS_RUN = runWord('rootless');
/**
 * A new user's first launch: a run of its own too, so its app sees no other run's swarm server (test-app.ts scopes a
 * named run's apps to their own), not even a floating run's that is still going when it starts.
 */
const NEW_USER_RUN = runWord('newuser');
/** Every test run's word (their test label: 0.0.0-test.<word>), for a sweep of what a failed run left behind. */
export const OWN_RUNS = [TIMERS_RUN, E2E_RUN, ROOTLESS_RUN, NEW_USER_RUN];
const WIZARD_RUNS = ['wizard-run', 'generated-scripts', 'dry-run-app'].map(spec('integration'));
const NO_CONTAINER = ['jobs', 'jobs-control', 'jobs-preflight', 'jobs-failures', 'wizard', 'wizard-project', 'ssh-connection', 'ssh-jump', 'ssh-known-hosts', 'dry-run-relay', 'ssh-tunnel'].map(
  spec('integration'),
);
/**
 * And the small ones: the vault, secrets, settings, plain SSH, the job runner's lifecycle, static checks, and the two
 * that rebuild out/ (packaging, `npm start`: every e2e run serves a copy of the renderer, see testPlan).
 */
const NO_CONTAINER_SMALL = [
  'packaging',
  'npm-start',
  'electronegativity',
  'generated-agree-roll',
  'vault',
  'jobs-lifecycle',
  'jobs-secrets',
  'ssh-host-key-types',
  'ssh-proxy-command',
  'secrets-endpoint-binding',
  'settings-import-confirm',
].map(spec('integration'));
/**
 * e2e files whose apps have no engine (a Docker socket that does not exist: Docker is not what they test), so nothing
 * of the shared dockerd reaches their pages. They float (the default test run: their apps start no container).
 */
const E2E_NO_ENGINE = ['packaged-smoke', 'settings-file', 'vault', 'backend-link', 'jobs-page', 'runs-page'].map(spec('e2e'));
/**
 * The e2e file whose server is the test bed's rootless Podman user, whose containers the Slurm lane's slurm-podman
 * file starts too (inside Slurm jobs): after slurm-podman, in its lane.
 */
const E2E_ROOTLESS_PODMAN = ['podman-servers'].map(spec('e2e'));
/** The first launch of a new user: no swarm server on this machine's engines, so no other container lane beside it. */
const E2E_NEW_USER = ['getting-started'].map(spec('e2e'));

/**
 * The e2e runs serve a copy of the built renderer: packaging.spec and npm-start.spec rebuild out/ in the container lane
 * while e2e files run beside it (test/e2e/browser.ts reads AGENTSWARM_E2E_RENDERER_DIR).
 */
export function testPlan(rendererCopy) {
  const e2eEnv = { AGENTSWARM_E2E_RENDERER_DIR: rendererCopy };
  const excluding = (files) => files.flatMap((file) => ['--exclude', file]);
  return {
    lanes: {
      // Niced: CPU-bound and off the critical path (idle CI-AA: it ended at 398 s of 454 s with 92 CPU s), while the Slurm
      // chain (a job's start, sshd, the queue's polls) and the e2e lane are chains of short waits, each of which ends
      // later when the cores are busy (the Slurm files' own run: 143 s in CI-X, 201 s in CI-AA). One worker: on two
      // it cost 102 CPU s instead of 91 and the run was no shorter (CI-AC 516 s, the Slurm chain last; CI-AB 503 s).
      // How nice: not niced it ended at 398 s and the Slurm chain at 454 s (CI-AA); at +5, 451 s and 426 s (CI-AF).
      // Not the conformance suite: its files mostly wait on the processes they start (fake-swarm-cli alone 42 s of
      // 110 s for 19 CPU s, idle CI-AY), and in this lane those waits came one after another at the end of the run,
      // the last lane by 56 s with one core idle. It floats (below).
      cpu: { own: [{ name: 'isolated', nice: 2, args: ['--project', 'unit', '--project', 'renderer', '--maxWorkers=1'] }] },
      slurm: {
        own: [
          { name: 'slurm-shared', args: ['--project', 'integration', ...SLURM_SHARED], env: NO_SWEEP },
          { name: 'slurm', waitFor: 'slurmPodman', args: ['--project', 'integration', SLURM_FILES, ...excluding([SLURM_PODMAN, ...SLURM_SHARED, ...SLURM_SECOND_NODE])], env: NO_SWEEP },
        ],
      },
      slurmSecond: {
        own: [{ name: 'slurm-second', args: ['--project', 'integration', ...SLURM_SECOND_NODE], env: { ...NO_SWEEP, ...ON_SECOND_NODE } }],
        then: [{ name: 'slurm-e2e', args: ['--project', 'e2e', ...SLURM_E2E], env: { ...NO_SWEEP, ...ON_SECOND_NODE, ...e2eEnv } }],
      },
      // Its output goes to the terminal as it comes (the other runs' into logs printed at the end).
      containers: {
        own: [
          {
            name: 'containers',
            terminal: true,
            args: ['--project', 'integration', '--exclude', `**/*${SLURM_FILES}*`, ...excluding([...CONTAINER_TIMERS, ...WORKERS_POOL, ...WIZARD_RUNS, ...NO_CONTAINER, ...NO_CONTAINER_SMALL])],
          },
        ],
      },
      slurmPodman: {
        own: [{ name: 'slurm-podman', args: ['--project', 'integration', SLURM_PODMAN], env: NO_SWEEP }],
        then: [{ name: 'e2e-rootless-podman', args: ['--project', 'e2e', ...E2E_ROOTLESS_PODMAN], env: { ...e2eEnv, AGENTSWARM_TEST_RUN: ROOTLESS_RUN } }],
      },
      timers: { own: [{ name: 'container-timers', args: ['--project', 'integration', ...CONTAINER_TIMERS], env: { AGENTSWARM_TEST_RUN: TIMERS_RUN } }] },
      e2e: {
        own: [
          {
            name: 'e2e',
            terminal: true,
            args: ['--project', 'e2e', ...excluding([...SLURM_E2E, ...E2E_NO_ENGINE, ...E2E_ROOTLESS_PODMAN, ...E2E_NEW_USER])],
            env: { ...e2eEnv, AGENTSWARM_TEST_RUN: E2E_RUN },
          },
        ],
      },
    },
    // Longest first (idle CI 2026-12-05: about 94 s, 42 s, 34 s, 30 s and 27 s; conformance 110 s on one worker).
    floating: [
      { name: 'wizard-runs', args: ['--project', 'integration', ...WIZARD_RUNS], env: NO_SWEEP },
      // Container-free (the fake servers in-process or as child processes, on ports the OS picks), on two workers: its
      // files wait more than they compute. Niced as it was in the CPU lane: no lane waits for it.
      { name: 'conformance', nice: 2, args: ['--project', 'conformance'] },
      { name: 'workers-pool', args: ['--project', 'integration', ...WORKERS_POOL], env: NO_SWEEP },
      { name: 'e2e-no-engine', args: ['--project', 'e2e', ...E2E_NO_ENGINE], env: { ...NO_SWEEP, ...e2eEnv } },
      { name: 'no-container-small', args: ['--project', 'integration', ...NO_CONTAINER_SMALL], env: NO_SWEEP },
      { name: 'no-container', args: ['--project', 'integration', ...NO_CONTAINER], env: NO_SWEEP },
    ],
    alone: { name: 'e2e-new-user', terminal: true, args: ['--project', 'e2e', ...E2E_NEW_USER], env: { ...e2eEnv, AGENTSWARM_TEST_RUN: NEW_USER_RUN } },
  };
}
