// Starts the fake swarm server (a TEST DOUBLE, test/fixtures/fake-swarm) as a separate OS process through its
// command line, exactly as the test image runs it (`ajet-swarm start --swarm-port N`), on a free loopback port.
// Used to show that the conformance suite only needs a URL, not an in-process handle.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { resolve } from 'node:path';
import { freePort } from '../../support/helpers';
import type { SwarmStartOptions, SwarmUnderTest } from '../swarm-conformance';

export const FAKE_CLI = resolve(import.meta.dirname, '../../fixtures/fake-swarm/cli.mjs');
const READY = /Interchange server is running in blocking mode on:\n------\nURL 1: (http:\/\/127\.0\.0\.1:(\d+))\n/;

export interface FakeCliProcess extends SwarmUnderTest {
  pid: number;
  /** Everything the process printed so far (stdout then stderr). */
  output(): string;
}

/** Spawns `node cli.mjs start --swarm-port <free port>` and waits for upstream's readiness marker. */
export async function startFakeCli(options: SwarmStartOptions, env: Record<string, string> = {}): Promise<FakeCliProcess> {
  const port = await freePort();
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [FAKE_CLI, 'start', '--swarm-port', String(port)], {
    stdio: 'pipe',
    env: {
      ...process.env,
      AJET_FAKE_TRAINER: 'external',
      AJET_FAKE_JANITOR_INTERVAL_MS: String(options.janitorIntervalMs),
      AJET_FAKE_CLIENT_ACTIVE_TIMEOUT_S: String(options.clientActiveTimeoutS),
      ...env,
    },
  });
  child.stdin.end();
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<void>((ok) => child.once('exit', () => ok()));
  const baseUrl = await new Promise<string>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`no readiness marker in 10 s; stdout: ${out} stderr: ${err}`)), 10_000);
    const check = () => {
      const m = READY.exec(out);
      if (!m?.[1]) return;
      clearTimeout(timer);
      child.stdout.off('data', check);
      if (Number(m[2]) !== port) fail(new Error(`asked for port ${port}, the server announced ${m[1]}`));
      else ok(m[1]);
    };
    child.stdout.on('data', check);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      fail(new Error(`ajet-swarm start exited (code ${code}, signal ${signal}) before it was ready; stderr: ${err}`));
    });
  });
  return {
    baseUrl,
    pid: child.pid ?? -1,
    output: () => out + err,
    async close() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
