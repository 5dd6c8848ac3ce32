/**
 * `npm run bench -- dryrun`: what the dry run's LLM relay adds to an agent's LLM call, in one run on 127.0.0.1.
 * The TEST DOUBLE LLM (test/fixtures/fake-llm) answers both ways: directly, and through the whole dry-run swarm
 * server (routing-key check, episode lookup, llm_call_count, response capture) with the relay, the spend guard and
 * the trace store behind it — what an agent's call goes through in the app. The LLM and the dry run run in
 * processes of their own (scripts/bench-dryrun-child.ts); this process plays the agents. Alternating rounds:
 * 1. sequential non-streamed chat completions: p50 direct vs relayed;
 * 2. 64 concurrent episodes (64 claimed episodes, one worker each): p99 direct vs relayed;
 * 3. streamed chat completions: time to the first body byte, p50 direct vs relayed.
 * The last line is machine-readable:
 * `BENCH dryrun relay_p50_overhead_ms=… conc64_p99_vs_direct=… ttfb_overhead_ms=…`
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { Agent, request } from 'node:http';
import { cpus, loadavg } from 'node:os';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { readFileSync } from 'node:fs';

const ROUNDS = Number(process.env.BENCH_DRYRUN_ROUNDS ?? 5);
const SEQ_CALLS = Number(process.env.BENCH_DRYRUN_CALLS ?? 200);
const CONCURRENCY = 64;
const CONC_CALLS_PER_WORKER = Number(process.env.BENCH_DRYRUN_CONC_CALLS ?? 10);
const KEY = `sk-bench-${randomUUID()}`;

const MESSAGES = [
  { role: 'system', content: 'You are a helpful assistant that answers math questions briefly.' },
  { role: 'user', content: 'What is 17 times 23? Answer with the number only.' },
];

interface Target {
  host: string;
  port: number;
  path: string;
  authorization: string;
}

// Idle sockets are dropped before the servers' 5 s keep-alive timeout, so a reused socket is never one the server
// is closing at that moment (that race is a client's problem, not the relay's).
const agent = new Agent({ keepAlive: true, maxSockets: 512, timeout: 4000 });

/** One chat call; resolves with [ms to the first body byte, ms to the end]. */
function call(target: Target, stream: boolean): Promise<[number, number]> {
  const body = JSON.stringify({ model: 'agent-model', messages: MESSAGES, stream, temperature: 0.7 });
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    let first = 0;
    const req = request(
      { host: target.host, port: target.port, path: target.path, method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), authorization: target.authorization } },
      (res) => {
        if (res.statusCode !== 200) reject(new Error(`HTTP ${res.statusCode} from ${target.path}`));
        res.on('data', () => {
          if (first === 0) first = Number(process.hrtime.bigint() - started) / 1e6;
        });
        res.on('end', () => resolve([first, Number(process.hrtime.bigint() - started) / 1e6]));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

const median = (values: number[]): number => percentile(values, 50);

async function sequential(targets: Target[], stream: boolean, calls: number): Promise<{ ttfb: number[]; total: number[] }> {
  const ttfb: number[] = [];
  const total: number[] = [];
  for (let i = 0; i < calls; i += 1) {
    const [first, end] = await call(targets[i % targets.length]!, stream);
    ttfb.push(first);
    total.push(end);
  }
  return { ttfb, total };
}

/** CPU milliseconds (user + system) a process has used, from /proc (Linux); NaN elsewhere. */
function cpuMs(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return Number.NaN;
  }
}

async function concurrent(targets: Target[]): Promise<number[]> {
  const latencies: number[] = [];
  await Promise.all(
    targets.slice(0, CONCURRENCY).map(async (target) => {
      for (let i = 0; i < CONC_CALLS_PER_WORKER; i += 1) latencies.push((await call(target, false))[1]);
    }),
  );
  return latencies;
}

async function json(url: string, path: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(new URL(path, url), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return (await res.json()) as Record<string, unknown>;
}

const children: ChildProcess[] = [];

/** Starts a bench child (scripts/bench-dryrun-child.ts) and resolves with the port it printed. */
function startChild(role: 'llm' | 'dryrun', env: Record<string, string>): Promise<number> {
  const script = resolve(import.meta.dirname, 'bench-dryrun-child.ts');
  // BENCH_PROFILE=<dir>: a V8 CPU profile of the dry-run process (where its time goes under load).
  const profile = role === 'dryrun' && process.env.BENCH_PROFILE;
  // node itself (tsx as a loader), so the child's pid is the server's own (its CPU time is read from /proc).
  const child = spawn(process.execPath, [...(profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : []), '--import', 'tsx', script, role], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...env },
  });
  children.push(child);
  return new Promise((ok, fail) => {
    child.once('exit', (code) => fail(new Error(`bench child ${role} exited with ${code}`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const match = /^READY (\d+)$/.exec(line);
      if (match) ok(Number(match[1]));
    });
  });
}

async function stopChildren(): Promise<void> {
  await Promise.all(
    children.map((child) => new Promise((done) => {
      if (child.exitCode !== null) return done(undefined);
      child.removeAllListeners('exit');
      child.once('exit', done);
      child.kill('SIGTERM');
    })),
  );
}

async function main(): Promise<void> {
  const llmPort = await startChild('llm', { BENCH_LLM_KEY: KEY });
  const dryRunPort = await startChild('dryrun', { BENCH_LLM_KEY: KEY, BENCH_LLM_URL: `http://127.0.0.1:${llmPort}/v1` });
  const server = { url: `http://127.0.0.1:${dryRunPort}` };
  const yaml =
    'ajet:\n  project_name: bench\n  experiment_name: bench\n  model:\n    path: /models/x\n  data:\n    train_batch_size: 32\n' +
    '  rollout:\n    num_repeat: 4\n  swarm_mode_sample_collection_method: rollout_until_finish_enough_episodes\n';
  await json(server.url, '/sync_train_config', { yaml_as_string: yaml });
  await json(server.url, '/start_engine', {});
  const clientUuid = randomUUID();
  const episodes: string[] = [];
  const deadline = Date.now() + 30_000;
  while (episodes.length < CONCURRENCY) {
    const claim = await json(server.url, '/claim_episode', { client_uuid: clientUuid, episode_type: 'train', discard_episode_timeout: 3600, throttle_policy: null });
    if (claim.success === true) episodes.push(String(claim.openai_api_key));
    else if (Date.now() > deadline) throw new Error(`could not claim 64 episodes: ${String(claim.fail_cause)}`);
    else await new Promise((r) => setTimeout(r, 20));
  }
  const serverPort = dryRunPort;
  const direct: Target[] = [{ host: '127.0.0.1', port: llmPort, path: '/v1/chat/completions', authorization: `Bearer ${KEY}` }];
  const relayed: Target[] = episodes.map((key) => ({ host: '127.0.0.1', port: serverPort, path: '/v1/chat/completions', authorization: `Bearer ${key}` }));
  const directConc = Array.from({ length: CONCURRENCY }, () => direct[0]!);

  // Warm-up: JIT, keep-alive sockets on both hops.
  await sequential(direct, false, 100);
  await sequential(relayed, false, 100);
  await concurrent(directConc);
  await concurrent(relayed);

  const seq = { direct: [] as number[], relay: [] as number[] };
  const conc = { direct: [] as number[], relay: [] as number[] };
  const ttfb = { direct: [] as number[], relay: [] as number[] };
  const concCpu = { direct: [] as Array<{ wall: number; llm: number; dryrun: number }>, relay: [] as Array<{ wall: number; llm: number; dryrun: number }> };
  for (let round = 0; round < ROUNDS; round += 1) {
    const order: Array<'direct' | 'relay'> = round % 2 === 0 ? ['direct', 'relay'] : ['relay', 'direct'];
    for (const side of order) {
      const targets = side === 'direct' ? direct : relayed;
      seq[side].push(median((await sequential(targets, false, SEQ_CALLS)).total));
      const cpuBefore = children.map((c) => cpuMs(c.pid));
      const wallBefore = Date.now();
      conc[side].push(percentile(await concurrent(side === 'direct' ? directConc : relayed), 99));
      const cpuAfter = children.map((c) => cpuMs(c.pid));
      concCpu[side].push({ wall: Date.now() - wallBefore, llm: cpuAfter[0]! - cpuBefore[0]!, dryrun: cpuAfter[1]! - cpuBefore[1]! });
      ttfb[side].push(median((await sequential(targets, true, SEQ_CALLS)).ttfb));
    }
  }
  const p50Overhead = median(seq.relay) - median(seq.direct);
  const concRatio = median(conc.relay) / median(conc.direct);
  const ttfbOverhead = median(ttfb.relay) - median(ttfb.direct);

  console.log(`dry-run relay through the dry-run server, TEST DOUBLE LLM on 127.0.0.1; ${ROUNDS} alternating rounds, medians of rounds`);
  console.log('measure                                    direct ms    relay ms');
  console.log(`sequential chat p50 (${SEQ_CALLS} calls/round)        ${median(seq.direct).toFixed(3).padStart(9)}   ${median(seq.relay).toFixed(3).padStart(9)}   (+${p50Overhead.toFixed(3)} ms, target <= 2)`);
  console.log(`64 concurrent p99 (${CONCURRENCY}x${CONC_CALLS_PER_WORKER} calls/round)       ${median(conc.direct).toFixed(3).padStart(9)}   ${median(conc.relay).toFixed(3).padStart(9)}   (${concRatio.toFixed(2)}x, target <= 1.5x)`);
  console.log(`stream first byte p50 (${SEQ_CALLS} calls/round)      ${median(ttfb.direct).toFixed(3).padStart(9)}   ${median(ttfb.relay).toFixed(3).padStart(9)}   (+${ttfbOverhead.toFixed(3)} ms, target <= 5)`);
  const calls = CONCURRENCY * CONC_CALLS_PER_WORKER;
  for (const side of ['direct', 'relay'] as const) {
    const c = concCpu[side];
    const per = (f: (x: { wall: number; llm: number; dryrun: number }) => number) => (median(c.map(f)) / calls).toFixed(3);
    console.log(`64 concurrent, ${side}: ${median(c.map((x) => x.wall))} ms per round; CPU ms per call: LLM ${per((x) => x.llm)}, dry run ${per((x) => x.dryrun)}`);
  }
  console.log(`load average ${loadavg().map((l) => l.toFixed(1)).join(' ')} on ${cpus().length} CPUs`);
  agent.destroy();
  await stopChildren();
  console.log(`BENCH dryrun relay_p50_overhead_ms=${p50Overhead.toFixed(2)} conc64_p99_vs_direct=${concRatio.toFixed(2)} ttfb_overhead_ms=${ttfbOverhead.toFixed(2)}`);
}

main().catch(async (error: unknown) => {
  console.error(error);
  await stopChildren();
  process.exit(1);
});
