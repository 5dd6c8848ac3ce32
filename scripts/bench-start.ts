/**
 * `npm run bench -- start`: from Start to the first engine status, the app against the shell, side
 * by side in one run on the test bed's dockerd with the fake swarm image (host network).
 *   app    SwarmContainers.start through the app's services (the `swarm:start` handler), from the
 *          call to the first `swarm:status` event that carries an engine status.
 *   shell  `docker run -d …` plus a curl loop on /get_engine_status (20 ms apart), as a user would type it.
 * Rounds alternate which path goes first, so a warm or busy dockerd favours neither. The app's time
 * is split in phases (call to start() returning, to the first event) to show where it goes.
 * The last line is machine-readable: `BENCH start app_vs_shell=1.20 app_p50_ms=330 shell_p50_ms=275`.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { createAppServices } from '../electron/services/app-services';
import { EventHub } from '../electron/services/events';
import type { SwarmStatus } from '../electron/shared/schemas';
import { freePort } from '../test/support/helpers';
import { loadTestbed } from '../test/testbed/testbed';

const ROUNDS = Number(process.env.BENCH_START_ROUNDS ?? 6);
const APP_VERSION = 'bench-start';
const SHELL_LABEL = 'io.agentswarm.bench=start-shell';
const TIMEOUT_MS = 30_000;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${command} exited with ${code}: ${stderr.trim()}`))));
  });
}

interface AppTiming {
  total: number;
  startReturned: number;
}

async function main(): Promise<void> {
  const testbed = loadTestbed();
  const docker = new Docker({ socketPath: testbed.dockerSocket });
  const dockerHost = `unix://${testbed.dockerSocket}`;
  const shellEnv = { ...process.env, DOCKER_HOST: dockerHost };
  const dir = await mkdtemp(join(tmpdir(), 'agentswarm-bench-start-'));
  const hub = new EventHub();
  const services = createAppServices({ dataDir: dir, host: 'browser', version: APP_VERSION, events: hub, dockerHost });
  await services.start();
  const { handlers } = services;

  const cleanUp = async () => {
    const ours = await docker.listContainers({ all: true, filters: { label: [`io.agentswarm.app-version=${APP_VERSION}`] } });
    const shell = await docker.listContainers({ all: true, filters: { label: [SHELL_LABEL] } });
    await Promise.all([...ours, ...shell].map((c) => docker.getContainer(c.Id).remove({ force: true }).catch(() => undefined)));
  };

  async function appOnce(): Promise<AppTiming> {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const started = performance.now();
    const firstStatus = new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`app: no engine status from ${url} within ${TIMEOUT_MS} ms`)), TIMEOUT_MS);
      const off = hub.subscribe((channel, payload) => {
        const status = payload as SwarmStatus;
        if (channel !== 'swarm:status' || status.url !== url || status.engineStatus === null) return;
        clearTimeout(timer);
        off();
        resolve(performance.now());
      });
    });
    const container = await handlers['swarm:start']({ engineId: 'local', image: testbed.fakeSwarmImage, port, networkMode: 'host', gpus: false, shmSizeGb: 1 });
    const startReturned = performance.now() - started;
    const total = (await firstStatus) - started;
    await handlers['swarm:remove']({ engineId: 'local', containerId: container.id });
    return { total, startReturned };
  }

  async function shellOnce(): Promise<number> {
    const port = await freePort();
    const script = [
      `docker run -d --init --network host --label ${SHELL_LABEL} ${testbed.fakeSwarmImage} ajet-swarm start --swarm-port ${port} >/dev/null`,
      `until curl -sf -o /dev/null http://127.0.0.1:${port}/get_engine_status; do sleep 0.02; done`,
    ].join(' && ');
    const started = performance.now();
    await run('timeout', [String(TIMEOUT_MS / 1000), 'sh', '-c', script], shellEnv);
    const total = performance.now() - started;
    const shell = await docker.listContainers({ all: true, filters: { label: [SHELL_LABEL] } });
    await Promise.all(shell.map((c) => docker.getContainer(c.Id).remove({ force: true })));
    return total;
  }

  try {
    await cleanUp();
    // One untimed round each: the first container start pays for page cache and dockerd warm-up.
    await appOnce();
    await shellOnce();
    const app: AppTiming[] = [];
    const shell: number[] = [];
    console.log(`start to first engine status, fake swarm image ${testbed.fakeSwarmImage}, host network, ${ROUNDS} alternating rounds`);
    console.log('round  first   app ms  (start() returned)  shell ms');
    for (let round = 0; round < ROUNDS; round += 1) {
      const appFirst = round % 2 === 0;
      let a: AppTiming;
      let s: number;
      if (appFirst) {
        a = await appOnce();
        s = await shellOnce();
      } else {
        s = await shellOnce();
        a = await appOnce();
      }
      app.push(a);
      shell.push(s);
      console.log(
        `${String(round + 1).padStart(5)}  ${(appFirst ? 'app' : 'shell').padEnd(6)} ${a.total.toFixed(0).padStart(7)}  ${`(${a.startReturned.toFixed(0)})`.padStart(18)}  ${s.toFixed(0).padStart(8)}`,
      );
    }
    const appP50 = median(app.map((a) => a.total));
    const shellP50 = median(shell);
    const returnedP50 = median(app.map((a) => a.startReturned));
    console.log(`median  app ${appP50.toFixed(0)} ms (start() returned after ${returnedP50.toFixed(0)} ms)  shell ${shellP50.toFixed(0)} ms`);
    console.log(`BENCH start app_vs_shell=${(appP50 / shellP50).toFixed(2)} app_p50_ms=${appP50.toFixed(0)} shell_p50_ms=${shellP50.toFixed(0)}`);
  } finally {
    await cleanUp();
    await services.dispose();
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
