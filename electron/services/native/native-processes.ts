import { readdir } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { AppError } from '../../shared/errors';
import {
  LABEL_PORT,
  type ContainerEvent,
  type ContainerSpec,
  type ContainerSummary,
  type EngineHost,
  type FollowLogOptions,
  type HostExecResult,
  type LogReadOptions,
} from '../engines/container-engine';
import { followNativeLog } from './native-log-follow';
import {
  EXIT,
  assertRunName,
  createScript,
  describeScript,
  envFileText,
  readFileScript,
  readLogScript,
  removeScript,
  startScript,
  stopScript,
  whichScript,
  type NativeRunSpec,
} from './native-scripts';
import { watchNativeRuns } from './native-events';
import { hasLabels, nativeIdOf, parseRunRecords, runNameOf, summaryOfRecord, type NativeRunRecord } from './native-records';

/** The process `ajet-swarm start` must not be given: it kills every python process on the host. */
const FORBIDDEN_ARGS = new Set(['--autokill']);

/** The port from the label, else from `--swarm-port N` / `--swarm-port=N` in the command. */
function portOf(spec: ContainerSpec): number | null {
  const label = Number(spec.labels[LABEL_PORT]);
  if (Number.isInteger(label) && label > 0) return label;
  for (let i = 0; i < spec.cmd.length; i++) {
    const arg = spec.cmd[i] ?? '';
    const value = arg === '--swarm-port' ? spec.cmd[i + 1] : arg.startsWith('--swarm-port=') ? arg.slice('--swarm-port='.length) : undefined;
    if (value !== undefined && Number.isInteger(Number(value))) return Number(value);
  }
  return null;
}

/**
 * Native swarm servers on one host (this computer's sh, or an SSH exec channel): each is a run
 * directory under ~/.agentswarm/run on the host, found again after an app restart by its pid file.
 * Every operation is one short script (native-scripts.ts); nothing is kept in memory but watchers.
 */
export class NativeProcesses {
  constructor(readonly host: EngineHost) {}

  async create(spec: ContainerSpec): Promise<string> {
    if (spec.runtime !== 'native') throw new AppError('INTERNAL', 'NativeProcesses.create got a container spec; native specs only.');
    const name = assertRunName(spec.name);
    if (spec.cmd.length === 0) throw new AppError('VALIDATION_FAILED', 'A native swarm server needs a command (ajet-swarm start --swarm-port=<port>).');
    const forbidden = spec.cmd.find((arg) => FORBIDDEN_ARGS.has(arg) || arg.startsWith('--autokill='));
    if (forbidden) {
      throw new AppError('VALIDATION_FAILED', `${forbidden} is refused: it kills every python process on ${this.host.label}, not just this server's.`);
    }
    const marker = (spec.cmd[0] ?? '').split('/').pop() || 'ajet-swarm';
    const run: NativeRunSpec = {
      version: 1,
      name,
      labels: spec.labels,
      port: portOf(spec),
      cmd: spec.cmd,
      activate: spec.nativeActivate?.trim() ? spec.nativeActivate.trim() : null,
      envNames: Object.keys(spec.env),
      marker: /^[A-Za-z0-9_.+-]+$/.test(marker) ? marker : 'ajet-swarm',
      createdAt: new Date().toISOString(),
    };
    // Values through stdin into a 0600 file: never in the script, which is argv (ps) on the host.
    await this.run(createScript(run), name, { stdin: envFileText(spec.env) });
    return nativeIdOf(name);
  }

  /**
   * Where `ajet-swarm` is on the host after `activate` (for the doctor's native check); rejects with
   * NATIVE_NOT_INSTALLED, naming the fix, when it is not there.
   */
  async which(activate: string | null, command = 'ajet-swarm'): Promise<string> {
    return (await this.run(whichScript(activate?.trim() ? activate.trim() : null, command), command)).stdout.trim();
  }

  async start(id: string): Promise<void> {
    const record = await this.record(id);
    await this.run(startScript(record.spec), record.spec.name, { timeoutMs: 30_000 });
  }

  async stop(id: string, timeoutSeconds: number): Promise<void> {
    const name = runNameOf(id);
    await this.run(stopScript(name, timeoutSeconds), name, { timeoutMs: (timeoutSeconds + 15) * 1000 });
  }

  /** `force` kills a running server first (docker rm -f); without it a running server is refused. */
  async remove(id: string, options: { force: boolean } = { force: false }): Promise<void> {
    const name = runNameOf(id);
    await this.run(removeScript(name, options.force), name, { timeoutMs: 15_000 });
  }

  async inspect(id: string): Promise<ContainerSummary> {
    return summaryOfRecord(await this.record(id));
  }

  async list(labels: Record<string, string>): Promise<ContainerSummary[]> {
    const now = Date.now();
    return (await this.records()).filter((r) => hasLabels(r, labels)).map((r) => summaryOfRecord(r, now));
  }

  async records(): Promise<NativeRunRecord[]> {
    return parseRunRecords((await this.run(describeScript(), '')).stdout);
  }

  async record(id: string): Promise<NativeRunRecord> {
    const name = runNameOf(id);
    const found = parseRunRecords((await this.run(describeScript(name), name)).stdout)[0];
    if (!found) throw this.notFound(name);
    return found;
  }

  async readLog(id: string, options: LogReadOptions): Promise<string[]> {
    const record = await this.record(id);
    // No timestamps in server.log: "since the last start" is the byte offset recorded at that start.
    const fromByte = options.sinceMs !== undefined && record.startedAtMs !== null && options.sinceMs >= record.startedAtMs - 1000 ? record.startOffset : undefined;
    const { stdout } = await this.run(readLogScript(record.spec.name, options.tail, fromByte), record.spec.name);
    return stdout.split('\n').map((l) => l.trimEnd()).filter((l) => l !== '').slice(-options.tail);
  }

  followLog(id: string, options: FollowLogOptions): Promise<void> {
    const name = runNameOf(id);
    return followNativeLog((script) => this.run(script, name), name, options);
  }

  watchEvents(labels: Record<string, string>, onEvent: (event: ContainerEvent) => void): () => void {
    return watchNativeRuns(() => this.recordsIfAny(), labels, onEvent);
  }

  /**
   * On this computer an empty (or missing) run folder is seen without starting a shell, so the
   * event poll costs next to nothing while no native server exists here (a spawn every few seconds
   * was most of the backend's idle CPU). Anywhere else, and with runs, the describe script as ever.
   */
  private async recordsIfAny(): Promise<NativeRunRecord[]> {
    if (this.host.kind === 'local') {
      const runs = await readdir(join(homedir(), '.agentswarm', 'run')).catch(() => []);
      if (runs.length === 0) return [];
    }
    return this.records();
  }

  async readFile(id: string, path: string, maxBytes: number): Promise<string | null> {
    const name = runNameOf(id);
    const { stdout } = await this.run(readFileScript(name, path, maxBytes), name);
    if (stdout.startsWith('@@absent')) return null;
    return stdout.startsWith('@@present\n') ? stdout.slice('@@present\n'.length) : stdout;
  }

  private notFound(name: string): AppError {
    return new AppError('CONTAINER_NOT_FOUND', `No native swarm server "${name}" on ${this.host.label} (its run directory ~/.agentswarm/run/${name} is gone).`);
  }

  /** Runs a script and turns our exit codes into errors that name the fix. */
  private async run(script: string, name: string, options: { stdin?: string; timeoutMs?: number } = {}): Promise<HostExecResult> {
    const result = await this.host.exec(script, options);
    if (result.code === 0) return result;
    const said = result.stderr.trim().split('\n').slice(-5).join(' ').trim();
    switch (result.code) {
      case EXIT.notFound:
        throw this.notFound(name);
      case EXIT.notInstalled:
        throw new AppError(
          'NATIVE_NOT_INSTALLED',
          `ajet-swarm was not found on ${this.host.label} after the profile's activate line${said ? ` (${said})` : ''}. ` +
            'Install AgentJet there (python -m venv ~/ajet && ~/ajet/bin/pip install agentjet) and set the activate line to the one that puts ajet-swarm on PATH (e.g. source ~/ajet/bin/activate).',
        );
      case EXIT.exists:
        throw new AppError('CONTAINER_CONFLICT', `A native swarm server named "${name}" already exists on ${this.host.label}. Remove it first.`);
      case EXIT.running:
        throw new AppError('CONTAINER_CONFLICT', `The native swarm server "${name}" on ${this.host.label} is running. Stop it first.`);
      case EXIT.didNotAppear:
        throw new AppError('CONTAINER_START_FAILED', `The native swarm server "${name}" did not start on ${this.host.label}: ${said || 'no process appeared'}. Its output is in ~/.agentswarm/run/${name}/server.log.`);
      case EXIT.noHome:
        throw new AppError('CONTAINER_START_FAILED', `HOME is not set for the login on ${this.host.label}, so the app has no place for its run directory.`);
      default:
        throw new AppError('INTERNAL', `A native swarm server command on ${this.host.label} failed (exit ${result.code ?? 'signal'})${said ? `: ${said}` : ''}.`);
    }
  }
}
