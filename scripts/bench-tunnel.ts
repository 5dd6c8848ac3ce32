/**
 * `npm run bench -- tunnel`: the swarm tunnel against OpenSSH's `ssh -N -L` and against no tunnel,
 * side by side in one run, all to the same HTTP server on 127.0.0.1 and the test bed's sshd
 * (127.0.0.1:2222). Each party is its own process, as in real use: the server, `ssh`, our tunnel
 * (scripts/bench-tunnel-child.ts) and this load generator. Rounds rotate which path goes first;
 * the table shows medians over rounds. Then one Docker API call (listContainers, p50) over our SSH
 * transport (streamlocal on one connection), over docker-modem's `ssh` protocol (a new SSH login
 * and `docker system dial-stdio` per call) and over the local socket.
 * The last line is machine-readable:
 * `BENCH tunnel throughput_vs_openssh=… conc128_p99_vs_openssh=… newconn_p50_vs_openssh=… docker_call_vs_local=… docker_ping_vs_local=… docker_call_speedup_vs_modem_ssh=…`
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import Docker from 'dockerode';
import { AppError } from '../electron/shared/errors';
import { createStreamLocalAgent, dockerOptionsOverAgent } from '../electron/services/engines/ssh-docker';
import { freePort, poll } from '../test/support/helpers';
import { loadTestbed } from '../test/testbed/testbed';
import { callP50, concurrent, download, freshConnections, median, percentile, sequential } from './bench-tunnel-load';
import { connectToTestbed } from '../test/support/testbed-ssh';

const ROUNDS = Number(process.env.BENCH_TUNNEL_ROUNDS ?? 3);
const DOWNLOAD_MIB = 200;
const SEQUENTIAL = 2000;
const CONNECTIONS = 128;
const PER_CONNECTION = 40;
const FRESH = 500;

interface Sample {
  mbps: number;
  seq: number[];
  conc: { latencies: number[]; rps: number };
  fresh: number[];
}

const children: ChildProcess[] = [];

/** Starts a child that prints `READY <port>` and resolves with that port. */
function startChild(command: string, args: string[]): Promise<number> {
  return new Promise((ok, fail) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    children.push(child);
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const ready = /READY (\d+)/.exec(out);
      if (ready) ok(Number(ready[1]));
    });
    child.once('exit', (code) => fail(new Error(`${args.join(' ')} exited with ${code} before it was ready`)));
  });
}

function startOpenSsh(remotePort: number, localPort: number, key: string, user: string, sshPort: number): Promise<void> {
  const child = spawn(
    'ssh',
    ['-N', '-L', `127.0.0.1:${localPort}:127.0.0.1:${remotePort}`, '-p', String(sshPort), '-i', key,
      '-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null', '-o', 'BatchMode=yes',
      '-o', 'ExitOnForwardFailure=yes', '-o', 'LogLevel=ERROR', `${user}@127.0.0.1`],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  children.push(child);
  return poll('ssh -L to listen', 15_000, () => download(`http://127.0.0.1:${localPort}`, 1).then(() => true)).then(() => undefined);
}

async function measure(base: string): Promise<Sample> {
  const mbps = await download(base, DOWNLOAD_MIB);
  const seq = await sequential(base, SEQUENTIAL);
  const conc = await concurrent(base, CONNECTIONS, PER_CONNECTION);
  const fresh = await freshConnections(base, FRESH);
  return { mbps, seq, conc, fresh };
}

const ms = (v: number) => v.toFixed(v < 10 ? 3 : 1);

async function main(): Promise<void> {
  const tb = loadTestbed();
  const tsx = [...process.execArgv];
  const child = resolve(import.meta.dirname, 'bench-tunnel-child.ts');
  const httpPort = await startChild(process.execPath, [...tsx, child, 'server']);
  const sshLocal = await freePort();
  await startOpenSsh(httpPort, sshLocal, tb.ssh.plainKeyPath, tb.ssh.user, tb.ssh.port);
  const oursPort = await startChild(process.execPath, [...tsx, child, 'tunnel', String(httpPort)]);
  const paths = [
    { name: 'direct', base: `http://127.0.0.1:${httpPort}` },
    { name: 'openssh -L', base: `http://127.0.0.1:${sshLocal}` },
    { name: 'ours (ssh2)', base: `http://127.0.0.1:${oursPort}` },
  ];
  const samples = new Map<string, Sample[]>(paths.map((p) => [p.name, []]));
  for (const p of paths) await download(p.base, 20); // warm-up
  for (let round = 0; round < ROUNDS; round += 1) {
    const order = [...paths.slice(round % paths.length), ...paths.slice(0, round % paths.length)];
    for (const p of order) samples.get(p.name)!.push(await measure(p.base));
    console.log(`round ${round + 1}/${ROUNDS} done (order: ${order.map((p) => p.name).join(', ')})`);
  }

  const row = (name: string) => {
    const s = samples.get(name)!;
    const med = (f: (x: Sample) => number) => median(s.map(f));
    return {
      mbps: med((x) => x.mbps),
      seqP50: med((x) => percentile(x.seq, 50)),
      seqP99: med((x) => percentile(x.seq, 99)),
      concP50: med((x) => percentile(x.conc.latencies, 50)),
      concP99: med((x) => percentile(x.conc.latencies, 99)),
      rps: med((x) => x.conc.rps),
      newP50: med((x) => percentile(x.fresh, 50)),
      newP99: med((x) => percentile(x.fresh, 99)),
    };
  };
  console.log(`\n${DOWNLOAD_MIB} MiB download; ${SEQUENTIAL} sequential keep-alive; ${CONNECTIONS} keep-alive connections x ${PER_CONNECTION}; ${FRESH} fresh connections; medians of ${ROUNDS} rounds`);
  console.log('path          MB/s    seq p50/p99 ms    conc128 p50/p99 ms   conc req/s   new-conn p50/p99 ms');
  const rows = new Map(paths.map((p) => [p.name, row(p.name)]));
  for (const [name, r] of rows) {
    console.log(
      `${name.padEnd(12)} ${r.mbps.toFixed(0).padStart(5)}   ${ms(r.seqP50).padStart(6)} / ${ms(r.seqP99).padEnd(7)}  ${ms(r.concP50).padStart(7)} / ${ms(r.concP99).padEnd(8)}  ${r.rps.toFixed(0).padStart(9)}   ${ms(r.newP50).padStart(7)} / ${ms(r.newP99)}`,
    );
  }

  // Docker: one listContainers call, three transports.
  const connection = await connectToTestbed({}, tb);
  const agent = createStreamLocalAgent(connection, '/var/run/docker.sock', (m) => new AppError('ENGINE_UNREACHABLE', m));
  const overSsh = new Docker(dockerOptionsOverAgent(agent));
  const local = new Docker({ socketPath: tb.dockerSocket });
  const modem = new Docker({
    protocol: 'ssh',
    host: tb.ssh.host,
    port: tb.ssh.port,
    username: tb.ssh.user,
    sshOptions: { privateKey: readFileSync(tb.ssh.plainKeyPath) },
  } as Docker.DockerOptions);
  const dockerLocal = await callP50(() => local.listContainers(), 200);
  const dockerOurs = await callP50(() => overSsh.listContainers(), 200);
  const dockerModem = await callP50(() => modem.listContainers(), 20);
  // The smallest call, /_ping: what the transport itself adds (issue 12's bound: at most 3x the local socket, +1 ms).
  const pingLocal = await callP50(() => local.ping(), 200);
  const pingOurs = await callP50(() => overSsh.ping(), 200);
  agent.destroy();
  await connection.close();
  console.log(`\nDocker listContainers p50: local socket ${ms(dockerLocal)} ms, our SSH transport ${ms(dockerOurs)} ms, docker-modem ssh ${ms(dockerModem)} ms`);
  console.log(`Docker /_ping p50: local socket ${ms(pingLocal)} ms, our SSH transport ${ms(pingOurs)} ms`);

  const ssh = rows.get('openssh -L')!;
  const ours = rows.get('ours (ssh2)')!;
  console.log(
    `BENCH tunnel throughput_vs_openssh=${(ours.mbps / ssh.mbps).toFixed(2)} conc128_p99_vs_openssh=${(ours.concP99 / ssh.concP99).toFixed(2)} newconn_p50_vs_openssh=${(ours.newP50 / ssh.newP50).toFixed(2)} docker_call_vs_local=${(dockerOurs / dockerLocal).toFixed(1)} docker_ping_vs_local=${(pingOurs / pingLocal).toFixed(1)} docker_call_speedup_vs_modem_ssh=${(dockerModem / dockerOurs).toFixed(0)}`,
  );
}

main()
  .catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  })
  .finally(() => {
    for (const c of children) c.kill();
  });
