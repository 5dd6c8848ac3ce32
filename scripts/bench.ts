/**
 * `npm run bench`: what the browser host's HTTP transport costs on top of calling a service
 * directly, measured side by side in one process (alternating rounds, medians), so the numbers
 * are ratios against a baseline rather than absolute times that vary with the machine.
 * `npm run bench -- start` runs the start benchmark instead (scripts/bench-start.ts).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBrowserHost } from '../electron/browser-host/server';
import { createAppServices } from '../electron/services/app-services';
import { EventHub } from '../electron/services/events';

const ROUNDS = 5;
const CALLS = Number(process.env.BENCH_CALLS ?? 300);

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

async function timeCalls(fn: () => Promise<unknown>, calls: number): Promise<number> {
  const started = process.hrtime.bigint();
  for (let i = 0; i < calls; i += 1) await fn();
  return Number(process.hrtime.bigint() - started) / 1e6 / calls;
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'agentswarm-bench-'));
  const hub = new EventHub();
  const services = createAppServices({ dataDir: dir, host: 'browser', version: 'bench', events: hub });
  await services.start();
  const host = await startBrowserHost({ handlers: services.handlers, hub, staticDir: dir });
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const viaHost = (channel: string, body: unknown) =>
    new Promise<unknown>((resolve, reject) => {
      const req = request(
        { host: '127.0.0.1', port: host.port, method: 'POST', path: `/api/invoke/${channel}`, agent, headers: { authorization: `Bearer ${host.token}`, 'content-type': 'application/json' } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString())));
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify(body));
    });

  const dockerUp = (await services.handlers['engines:health']({ engineId: 'local' })).reachable;
  const cases: { name: string; direct: () => Promise<unknown>; host: () => Promise<unknown> }[] = [
    { name: 'app:info', direct: () => services.handlers['app:info']({}), host: () => viaHost('app:info', {}) },
  ];
  if (dockerUp) {
    cases.push({
      name: 'swarm:list (real dockerd)',
      direct: () => services.handlers['swarm:list']({ engineId: 'local' }),
      host: () => viaHost('swarm:list', { engineId: 'local' }),
    });
  } else {
    console.log('Docker is not reachable: swarm:list is not benchmarked (run `bash test/testbed/testbed.sh up`).');
  }

  console.log(`${ROUNDS} alternating rounds x ${CALLS} sequential calls; median ms per call`);
  console.log('case                         direct ms   host ms   ratio host/direct');
  for (const c of cases) {
    await timeCalls(c.direct, 20);
    await timeCalls(c.host, 20);
    const direct: number[] = [];
    const viaHttp: number[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      if (round % 2 === 0) {
        direct.push(await timeCalls(c.direct, CALLS));
        viaHttp.push(await timeCalls(c.host, CALLS));
      } else {
        viaHttp.push(await timeCalls(c.host, CALLS));
        direct.push(await timeCalls(c.direct, CALLS));
      }
    }
    const d = median(direct);
    const h = median(viaHttp);
    console.log(`${c.name.padEnd(28)} ${d.toFixed(3).padStart(9)} ${h.toFixed(3).padStart(9)}   ${(h / d).toFixed(2)}x (+${(h - d).toFixed(3)} ms)`);
  }
  agent.destroy();
  await host.close();
  await services.dispose();
  await rm(dir, { recursive: true, force: true });
}

// `npm run bench -- start`: start-to-first-status, app against shell (scripts/bench-start.ts).
// `npm run bench -- tunnel`: our SSH tunnel against `ssh -N -L` and direct (scripts/bench-tunnel.ts).
if (process.argv[2] === 'start') {
  void import('./bench-start');
} else if (process.argv[2] === 'tunnel') {
  void import('./bench-tunnel');
} else if (process.argv[2] === 'dryrun') {
  // `npm run bench -- dryrun`: the dry run's LLM relay against calling the LLM directly (scripts/bench-dryrun.ts).
  void import('./bench-dryrun');
} else if (process.argv[2] === 'watch') {
  // `npm run bench -- watch`: requests a watched swarm server receives, and the backend's CPU, with no window (scripts/bench-watch.ts).
  void import('./bench-watch');
} else if (process.argv[2] === 'logs') {
  // `npm run bench -- logs`: stored logs against `docker logs`, crash report delay, memory (scripts/bench-logs.ts).
  void import('./bench-logs');
} else if (process.argv[2] === 'workers') {
  // `npm run bench -- workers`: episodes per minute of 4 rollout workers against 1 (scripts/bench-workers.ts).
  void import('./bench-workers');
} else if (process.argv[2] === 'startup') {
  // `npm run bench -- startup`: first paint, first page's JS, API calls per load, browser host cold start (scripts/bench-startup.ts).
  void import('./bench-startup');
} else {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
