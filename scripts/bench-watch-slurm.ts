/**
 * What watching Slurm jobs costs the cluster's controller (issue 31), on the test bed's REAL Slurm 22.05 through its
 * sshd as the login node. The app's Slurm engine watches its jobs as the app does (engine events as the swarm monitor
 * subscribes them, every job's output followed as the log service does, the limit warnings and the `slurm:jobs`
 * handler of the Slurm domain), first 1 running job with no window (`isShown` false), then 5 jobs with 2 windows
 * (2 jobs-panel subscribers, each reading `slurm:jobs` as the renderer's panel does). The server in the jobs is the
 * fake swarm (TEST DOUBLE of ajet-swarm, on PATH through the test bed's activate line).
 *
 * Counted: every command the app runs on the login node, and what each costs slurmctld. The test bed's controller is
 * shared with other suites running as the same user, so a window's raw `sdiag` delta counts their requests too (it is
 * printed, not used): each distinct read-only Slurm command the app ran is run again alone, five times, and its
 * cost is the smallest `sdiag` delta of the login user (Remote Procedure Call statistics by user).
 *
 * Runs against older versions too (the "before" of the README): a version without the engine's queue watch gets the
 * renderer panel of its time, which read `slurm:jobs` every 10 s.
 * `npx tsx scripts/bench-watch-slurm.ts [--seconds 60]` prints
 * `BENCH watch-slurm squeue_per_min_1job=… squeue_per_min_5jobs_2windows=…` (slurmctld requests a minute).
 */
import { execFileSync } from 'node:child_process';
import { LABEL_MANAGED, LABEL_PORT, LABEL_PROFILE, LABEL_ROLE, type ContainerSpec, type EngineHost } from '../electron/services/engines/container-engine';
import { SshHost } from '../electron/services/engines/engine-host';
import type { EngineWording } from '../electron/services/engines/engine-wording';
import { SlurmEngine } from '../electron/services/engines/slurm/slurm-engine';
import type { ServiceContext } from '../electron/services/domain';
import { registerSlurm } from '../electron/services/slurm/register';
import { SlurmJobOptions } from '../electron/shared/schemas-slurm';
import { TEST_CONTAINER_LABELS } from '../test/support/test-app';
import { connectToTestbed } from '../test/support/testbed-ssh';
import { loadTestbed, loadTestbedWithSlurm } from '../test/testbed/testbed';

export interface MeasureSlurmWatchOptions {
  /** Length of each measured window (default 60 s). */
  seconds?: number;
  /** Progress lines (default: console.log). */
  log?: (line: string) => void;
}

export interface SlurmWatchCost {
  squeue_per_min_1job: number;
  squeue_per_min_5jobs_2windows: number;
}

const SLURM_COMMAND = /\b(squeue|scontrol|sbatch|scancel|sinfo|srun|sacct)\b/g;
/** Commands that change nothing: safe to run again to learn their cost. */
const READ_ONLY = /^(?!.*\b(sbatch|scancel|srun|release|update)\b).*\b(squeue|scontrol\s+(?:--local\s+)?(?:-o\s+)?show|sinfo)\b/s;

interface Ran {
  at: number;
  script: string;
}

/** The login user's slurmctld requests so far (sdiag, by user). */
function sdiagCount(user: string): number {
  const tb = loadTestbedWithSlurm();
  const out = execFileSync(`${tb.slurm.bin}/sdiag`, [], { env: { ...process.env, SLURM_CONF: tb.slurm.conf }, encoding: 'utf8' });
  const line = out.split('\n').find((l) => new RegExp(`^\\s*${user}\\s*\\(`).test(l));
  return Number(/count:(\d+)/.exec(line ?? '')?.[1] ?? 0);
}

/** A script with its job ids and quoted names taken out: one cost per shape. */
const shapeOf = (script: string) => script.replace(/'[^']*'/g, 'Q').replace(/\d+/g, 'N');

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export async function measureSlurmWatch(options: MeasureSlurmWatchOptions = {}): Promise<SlurmWatchCost> {
  const seconds = options.seconds ?? 60;
  const log = options.log ?? ((line: string) => console.log(line));
  const tb = loadTestbedWithSlurm();
  const user = tb.slurm.loginUser;
  const conn = await connectToTestbed({}, tb);
  const ssh = new SshHost(`testbed login (${user})`, () => Promise.resolve(conn));
  const ran: Ran[] = [];
  const host: EngineHost = {
    kind: 'ssh',
    label: ssh.label,
    exec: (script, o) => {
      ran.push({ at: Date.now(), script });
      return ssh.exec(script, o);
    },
  };
  let shown = false;
  const engineId = 'slurm-bench';
  const engine = new SlurmEngine({
    summary: { id: engineId, kind: 'slurm', label: 'test bed Slurm', endpoint: `ssh://${user}@${tb.ssh.host}:${tb.ssh.port}` },
    wording: { product: 'Slurm' } as EngineWording,
    host,
    openChannel: (address, port) => conn.forwardOut(address, port),
    appVersion: '0.1.0-bench',
    portBase: 36_000 + (process.pid % 2000),
    startWaitMs: 0,
    isShown: () => shown,
  } as ConstructorParameters<typeof SlurmEngine>[0]);
  const legacyPanels = !('queueWatch' in engine);
  const changed = new Set<() => void>();
  const context = {
    engines: { all: () => [engine], get: () => engine, has: () => true, onChange: () => () => undefined },
    events: { emit: (channel: string, payload: { engineId?: string }) => channel === 'swarm:containers-changed' && payload.engineId === engineId && changed.forEach((l) => l()) },
    notifier: { notify: () => undefined },
    logger: { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined },
  } as unknown as ServiceContext;
  const slurm = registerSlurm(context);
  const run = `bw${process.pid.toString(36)}${Date.now().toString(36)}`;
  const ids: string[] = [];
  const stops: (() => void)[] = [];
  const follows = new AbortController();

  const submit = async (n: number): Promise<string> => {
    const key = `${run}-${n}`;
    const spec: ContainerSpec = {
      name: `agentswarm-${key}`,
      image: '',
      cmd: ['ajet-swarm', 'start', '--swarm-port', String(40_000 + n)],
      env: { NO_COLOR: '1' },
      labels: { [LABEL_MANAGED]: 'true', [LABEL_ROLE]: 'swarm-server', [LABEL_PROFILE]: key, [LABEL_PORT]: String(40_000 + n), ...TEST_CONTAINER_LABELS },
      network: { mode: 'host' },
      init: true,
      gpus: { mode: 'none' },
      shm: { mode: 'ipc-host' },
      binds: [],
      runtime: 'native',
      nativeActivate: loadTestbed().native.sshUserActivate,
      batch: SlurmJobOptions.parse({ partition: tb.slurm.partition, timeLimit: '15', run: { mode: 'native', activate: loadTestbed().native.sshUserActivate } }),
    };
    const id = await engine.createContainer(spec);
    ids.push(id);
    await engine.startContainer(id);
    // As the log service does for every watched server.
    void engine.followLog(id, { signal: follows.signal, onLines: () => undefined }).catch(() => undefined);
    return id;
  };

  /** Commands of the window and what they cost the controller. */
  const window = async (name: string): Promise<number> => {
    const from = ran.length;
    const before = sdiagCount(user);
    const t0 = Date.now();
    await sleep(seconds * 1000);
    const minutes = (Date.now() - t0) / 60_000;
    const raw = sdiagCount(user) - before;
    const scripts = ran.slice(from).map((r) => r.script);
    const costs = new Map<string, number>();
    for (const script of scripts) {
      const shape = shapeOf(script);
      if (costs.has(shape) || !script.match(SLURM_COMMAND)) continue;
      if (!READ_ONLY.test(script)) {
        costs.set(shape, script.match(SLURM_COMMAND)!.length);
        continue;
      }
      let least = Infinity;
      for (let i = 0; i < 5; i += 1) {
        const a = sdiagCount(user);
        await ssh.exec(script);
        // sdiag's own request is counted for the login user only when it runs as that user; here it runs as root.
        least = Math.min(least, sdiagCount(user) - a);
      }
      costs.set(shape, least);
    }
    const rpcs = scripts.reduce((sum, s) => sum + (costs.get(shapeOf(s)) ?? 0), 0);
    const squeues = scripts.filter((s) => /\bsqueue\b/.test(s)).length;
    log(`${name}: ${(rpcs / minutes).toFixed(1)} slurmctld requests/min (${squeues} squeue, ${scripts.length} SSH commands in ${(minutes * 60).toFixed(0)} s; raw sdiag delta of ${user}, other suites included: ${raw})`);
    for (const [shape, cost] of costs) log(`  ${String(scripts.filter((s) => shapeOf(s) === shape).length).padStart(3)} × ${cost} request(s): ${shape.replace(/\s+/g, ' ').slice(0, 140)}`);
    return Math.round((rpcs / minutes) * 10) / 10;
  };

  try {
    await slurm.start?.();
    stops.push(engine.watchEvents({ [LABEL_MANAGED]: 'true' }, () => undefined));
    await submit(0);
    log(`1 job submitted (${ids[0]}); no window shows the server${legacyPanels ? ' (a version without the queue watch)' : ''}`);
    await sleep(5000);
    const one = await window('1 job, no window');

    for (let n = 1; n < 5; n += 1) await submit(n);
    shown = true;
    for (let w = 0; w < 2; w += 1) {
      const load = () => void slurm.handlers['slurm:jobs']({ engineId }).catch(() => undefined);
      load();
      changed.add(load);
      if (legacyPanels) {
        // The panel of that version: `slurm:jobs` every 10 s while its page is visible.
        const timer = setInterval(load, 10_000);
        stops.push(() => clearInterval(timer));
      }
    }
    log(`5 jobs (${ids.join(', ')}), 2 windows show the server`);
    await sleep(5000);
    const five = await window('5 jobs, 2 windows');
    return { squeue_per_min_1job: one, squeue_per_min_5jobs_2windows: five };
  } finally {
    follows.abort();
    for (const stop of stops) stop();
    changed.clear();
    await slurm.dispose?.();
    for (const id of ids) await engine.removeContainer(id).catch(() => undefined);
    await ssh.exec(`scancel -u "$USER" -n ${ids.map((_, n) => `agentswarm-${run}-${n}`).join(',')}; rm -rf "$HOME"/.agentswarm/slurm/agentswarm-${run}-*`).catch(() => undefined);
    await engine.dispose();
    await conn.close();
  }
}

const invokedDirectly = process.argv[1] !== undefined && /bench-watch-slurm\.ts$/.test(process.argv[1]);
if (invokedDirectly) {
  const at = process.argv.indexOf('--seconds');
  const seconds = at > 0 ? Number(process.argv[at + 1]) : 60;
  measureSlurmWatch({ seconds: Number.isFinite(seconds) && seconds > 0 ? seconds : 60 })
    .then((cost) => {
      console.log(`BENCH watch-slurm squeue_per_min_1job=${cost.squeue_per_min_1job} squeue_per_min_5jobs_2windows=${cost.squeue_per_min_5jobs_2windows}`);
      process.exit(0);
    })
    .catch((error: unknown) => {
      console.error(error instanceof Error ? error.stack ?? error.message : error);
      process.exit(1);
    });
}
