import { posix, relative, sep } from 'node:path';
import { AppError } from '../../shared/errors';
import type { WorkerPlacementData } from '../../shared/schemas-workers';
import { shellQuote, type EngineHost } from '../engines/container-engine';
import { SshHost } from '../engines/engine-host';
import { envFileText } from '../native/native-scripts';
import { llmSecretEnv } from '../secrets/secret-env';
import type { SecretVaultApi } from '../secrets/vault-api';
import type { SshConnection } from '../ssh/ssh-connection';
import { copyProject, projectManifest } from './project-copy';
import type { WorkerBackend, WorkerHandle, WorkerPoll, WorkerStartSpec } from './worker-backend';
import type { WorkerNote } from '../../shared/schemas-workers';
import { noteText, notesLine, projectNote, workerNote } from './worker-notes';

export interface SshWorkersOptions {
  connectionOf: (serverId: string) => Promise<SshConnection>;
  labelOf: (serverId: string) => string;
  vault: SecretVaultApi;
  /** The app's URL of the swarm server (its tunnel's end for a remote one): where a reverse tunnel leads. */
  swarmUrl: (engineId: string, containerId: string) => string | null;
}

type SshPlacement = Extract<WorkerPlacementData, { kind: 'ssh' }>;

const MAX_READ_BYTES = 1_000_000;

/** The reverse tunnel's cost, said plainly where the worker is shown. */
export const TUNNEL_NOTE = noteText(workerNote('reverseTunnel'));

/**
 * Workers on SSH hosts: the project copied (project-copy.ts), then `agent_roll.py` started detached
 * in its own session from a run folder `~/.agentswarm/workers/<pool>-<index>/` (as native mode starts
 * a swarm server): the env (share, swarm URL, the LLM key) through stdin into a 0600 file the
 * wrapper reads and deletes, never argv; the pid in a file; the exit code when it ends. Found again
 * by that folder after an app restart; stopped by its recorded pid (and its process group) only.
 */
export class SshWorkers implements WorkerBackend {
  /** Reverse tunnels by `<serverId>:<remote port>`, opened again after an app restart or reconnect. */
  private readonly tunnels = new Map<string, { close: () => void }>();

  constructor(private readonly options: SshWorkersOptions) {}

  where(placement: WorkerPlacementData): string {
    return placement.kind === 'ssh' ? this.options.labelOf(placement.serverId) : 'this computer';
  }

  private host(placement: SshPlacement): EngineHost {
    return new SshHost(this.options.labelOf(placement.serverId), () => this.options.connectionOf(placement.serverId));
  }

  async start(spec: WorkerStartSpec): Promise<WorkerHandle> {
    const placement = ssh(spec.placement);
    const host = this.host(placement);
    const { request } = spec;
    const projectDir = request.projectDir ?? request.cwd;
    const inside = relative(projectDir, request.cwd);
    if (inside.startsWith('..')) throw new AppError('VALIDATION_FAILED', `The worker's folder ${request.cwd} is not inside the project ${projectDir} that is copied to ${host.label}.`);
    const manifest = await projectManifest(projectDir, request.exclude);
    const copy = await copyProject(host, async () => (await this.options.connectionOf(placement.serverId)).sftp(), manifest);
    const workDir = inside === '' ? copy.remoteDir : posix.join(copy.remoteDir, ...inside.split(sep));

    const { url, tunnelPort, note } = await this.swarmUrlFor(placement, spec, host);
    const env: Record<string, string> = { ...spec.shareEnv, AJET_SWARM_URL: url, PYTHONUNBUFFERED: '1', PYTHONIOENCODING: 'utf-8' };
    if (request.remoteModelPath !== null) env.REMOTE_MODEL_PATH = request.remoteModelPath;
    if (request.llmSecretId !== null) Object.assign(env, await llmSecretEnv(this.options.vault, request.llmSecretId));
    const name = runName(spec);
    const started = await host.exec(startScript(name, workDir, placement.python, request.script), { stdin: envFileText(env), timeoutMs: 60_000 });
    const pid = Number(/^@@pid (\d+)$/m.exec(started.stdout)?.[1]);
    if (started.code !== 0 || !Number.isInteger(pid)) {
      throw new AppError('JOB_CRASHED', `The worker did not start on ${host.label}: ${started.stderr.trim().split('\n').slice(-3).join(' ') || `exit ${started.code}`}. Its output is in ~/.agentswarm/workers/${name}/worker.log there.`);
    }
    const notes = [...(note ? [note] : []), projectNote(copy)];
    return { pid, jobId: null, runDir: `~/.agentswarm/workers/${name}`, logOffset: 0, note: notesLine(notes), notes, tunnelPort };
  }

  /** AJET_SWARM_URL as the worker sees it, tested from the worker where the user says it reaches the server. */
  private async swarmUrlFor(placement: SshPlacement, spec: WorkerStartSpec, host: EngineHost): Promise<{ url: string; tunnelPort: number | null; note: WorkerNote | null }> {
    const reach = placement.reach;
    if (reach.kind === 'same-host') return { url: `http://127.0.0.1:${reach.port}`, tunnelPort: null, note: null };
    if (reach.kind === 'direct') {
      const url = reach.url.replace(/\/+$/, '');
      // One GET /health from the worker, with its interpreter (curl may not be there).
      const probe = `import sys, urllib.request\ntry:\n    urllib.request.urlopen(sys.argv[1] + "/health", timeout=5).read()\nexcept Exception as e:\n    sys.exit(str(e))`;
      const checked = await host.exec(`${placement.python} -c ${shellQuote(probe)} ${shellQuote(url)}`, { timeoutMs: 30_000 });
      if (checked.code !== 0) {
        throw new AppError(
          'SWARM_UNREACHABLE',
          `${host.label} cannot reach the swarm server at ${url} (GET /health: ${checked.stderr.trim().split('\n').slice(-1)[0] || `exit ${checked.code}`}). Choose "through this computer" (a reverse tunnel) or the address the server has on that network.`,
        );
      }
      return { url, tunnelPort: null, note: null };
    }
    const appUrl = this.options.swarmUrl(spec.request.swarm.engineId, spec.request.swarm.containerId);
    if (!appUrl) throw new AppError('SWARM_UNREACHABLE', 'The swarm server is not running or not watched by the app, so there is nothing to tunnel to. Start it first.');
    const port = await this.openTunnel(placement.serverId, appUrl, 0);
    return { url: `http://127.0.0.1:${port}`, tunnelPort: port, note: workerNote('reverseTunnel') };
  }

  private async openTunnel(serverId: string, appUrl: string, remotePort: number): Promise<number> {
    const target = new URL(appUrl);
    const connection = await this.options.connectionOf(serverId);
    const tunnel = await connection.forwardIn({ host: target.hostname, port: Number(target.port) || 80 }, remotePort);
    this.tunnels.set(`${serverId}:${tunnel.port}`, tunnel);
    connection.once('closed', () => this.tunnels.delete(`${serverId}:${tunnel.port}`));
    return tunnel.port;
  }

  async poll(handle: WorkerHandle, spec: WorkerStartSpec): Promise<WorkerPoll> {
    const placement = ssh(spec.placement);
    if (handle.tunnelPort !== null && !this.tunnels.has(`${placement.serverId}:${handle.tunnelPort}`)) {
      // After an app restart or a reconnect the worker's tunnel port is served again (same port on the host).
      const appUrl = this.options.swarmUrl(spec.request.swarm.engineId, spec.request.swarm.containerId);
      if (appUrl) await this.openTunnel(placement.serverId, appUrl, handle.tunnelPort).catch(() => undefined);
    }
    const result = await this.host(placement).exec(pollScript(runName(spec), handle.logOffset), { timeoutMs: 30_000 });
    if (result.code !== 0) throw new AppError('SSH_DISCONNECTED', `The worker on ${this.where(placement)} could not be asked: exit ${result.code}.`);
    const head = /^@@(alive|gone|exit (-?\d+)|nodir)\n@@size (\d+)\n/.exec(result.stdout);
    if (!head) throw new AppError('SSH_DISCONNECTED', `The worker on ${this.where(placement)} answered something unexpected.`);
    const body = result.stdout.slice(head[0].length);
    // Only whole lines: a line still being written is read next time.
    const cut = body.lastIndexOf('\n');
    const whole = cut < 0 ? '' : body.slice(0, cut);
    handle.logOffset += cut < 0 ? 0 : Buffer.byteLength(body.slice(0, cut + 1), 'utf8');
    const lines = whole === '' ? [] : whole.split('\n');
    const state = head[1]!;
    if (state === 'alive') return { lines, end: null };
    // Gone: read the rest once more before telling (the poll above may have stopped at a partial line).
    if (cut < body.length - 1 && body.length > 0) lines.push(body.slice(cut + 1));
    if (state === 'nodir') return { lines, end: { exitCode: null, signal: null, startError: `its run folder ${handle.runDir} is gone from ${this.where(placement)}` } };
    if (state === 'gone') return { lines, end: { exitCode: null, signal: null, startError: null } };
    const code = Number(head[2]);
    return { lines, end: { exitCode: code, signal: code > 128 ? signalName(code - 128) : null, startError: null } };
  }

  async stop(handle: WorkerHandle, spec: WorkerStartSpec): Promise<void> {
    const placement = ssh(spec.placement);
    await this.host(placement).exec(stopScript(runName(spec)), { timeoutMs: 30_000 });
    if (handle.tunnelPort !== null) {
      const key = `${placement.serverId}:${handle.tunnelPort}`;
      this.tunnels.get(key)?.close();
      this.tunnels.delete(key);
    }
  }
}

function ssh(placement: WorkerPlacementData): SshPlacement {
  if (placement.kind !== 'ssh') throw new AppError('INTERNAL', 'An SSH worker without an SSH placement.');
  return placement;
}

function runName(spec: WorkerStartSpec): string {
  return `${spec.poolId}-${spec.index}`;
}

function signalName(n: number): string {
  return ({ 1: 'SIGHUP', 2: 'SIGINT', 9: 'SIGKILL', 15: 'SIGTERM' } as Record<number, string>)[n] ?? `signal ${n}`;
}

/**
 * Python resets SIGINT to its default before running the script: a detached process starts with
 * SIGINT ignored (POSIX, for background jobs), and Python would then never raise KeyboardInterrupt,
 * so a stop could not let the worker give its episodes back.
 */
const SIGINT_SHIM = 'import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execv(sys.executable, [sys.executable] + sys.argv[1:])';

/** Writes the env file (stdin), the wrapper, and starts it in its own session; prints `@@pid <python's pid>`. */
export function startScript(name: string, workDir: string, python: string, script: string): string {
  const launch = [
    '# Written by AgentSwarm Desktop: one rollout worker; records its pid and exit code.',
    'dir=$(cd "$(dirname "$0")" && pwd) || exit 1',
    'echo "$$" >"$dir/wrapper"',
    // Secrets live on disk only until the worker has them in its environment.
    'if [ -f "$dir/env" ]; then . "$dir/env"; rm -f "$dir/env"; fi',
    `cd ${shellQuote(workDir)} || exit 1`,
    `${python} -c ${shellQuote(SIGINT_SHIM)} ${shellQuote(script)} &`,
    'child=$!',
    'echo "$child" >"$dir/pid.tmp" && mv "$dir/pid.tmp" "$dir/pid"',
    'wait "$child"',
    'echo "$?" >"$dir/exit.tmp" && mv "$dir/exit.tmp" "$dir/exit"',
  ].join('\n');
  return [
    '[ -n "$HOME" ] || { echo "HOME is not set" >&2; exit 90; }',
    `d="$HOME/.agentswarm/workers/${name}"`,
    'mkdir -p "$d" && chmod 700 "$d"',
    'rm -f "$d/pid" "$d/exit" "$d/wrapper"',
    '(umask 077 && cat >"$d/env")',
    `cat >"$d/launch.sh" <<'AGENTSWARM_LAUNCH_EOF'\n${launch}\nAGENTSWARM_LAUNCH_EOF`,
    ': >>"$d/worker.log"',
    'sh_=$(command -v bash 2>/dev/null || echo /bin/sh)',
    'if command -v setsid >/dev/null 2>&1; then setsid "$sh_" "$d/launch.sh" </dev/null >>"$d/worker.log" 2>&1 &',
    'else nohup "$sh_" "$d/launch.sh" </dev/null >>"$d/worker.log" 2>&1 & fi',
    'i=0',
    'while [ $i -lt 100 ] && [ ! -f "$d/pid" ] && [ ! -f "$d/exit" ]; do sleep 0.1; i=$((i + 1)); done',
    '[ -f "$d/pid" ] || { tail -n 5 "$d/worker.log" >&2; exit 1; }',
    'echo "@@pid $(cat "$d/pid")"',
  ].join('\n');
}

/** State (`@@alive`, `@@exit <code>`, `@@gone`: its pid is not alive and it wrote no exit code), size, then the new log bytes. */
export function pollScript(name: string, offset: number): string {
  return [
    `d="$HOME/.agentswarm/workers/${name}"`,
    '[ -d "$d" ] || { printf "@@nodir\\n@@size 0\\n"; exit 0; }',
    'p=$(cat "$d/pid" 2>/dev/null)',
    'if [ -f "$d/exit" ]; then echo "@@exit $(cat "$d/exit")"',
    'elif [ -n "$p" ] && kill -0 "$p" 2>/dev/null; then echo "@@alive"',
    'else echo "@@gone"; fi',
    's=$(wc -c <"$d/worker.log" | tr -d " ")',
    'echo "@@size $s"',
    `o=${Math.max(0, Math.floor(offset))}`,
    `[ "$s" -gt "$o" ] && tail -c +$((o + 1)) "$d/worker.log" | head -c $(( s - o < ${MAX_READ_BYTES} ? s - o : ${MAX_READ_BYTES} ))`,
    'exit 0',
  ].join('\n');
}

/** SIGINT (the worker gives its episodes back), then SIGTERM, then SIGKILL: to its recorded process group, else its pid. */
export function stopScript(name: string): string {
  return [
    `d="$HOME/.agentswarm/workers/${name}"`,
    'p=$(cat "$d/pid" 2>/dev/null); w=$(cat "$d/wrapper" 2>/dev/null)',
    '[ -n "$p" ] || exit 0',
    // The wrapper leads its own session (setsid): signalling the group reaches the agent's subprocesses too.
    'g=$(ps -o pgid= -p "$p" 2>/dev/null | tr -d " ")',
    'if [ -n "$w" ] && [ "$g" = "$w" ]; then t="-$w"; else t="$p"; fi',
    'alive() { kill -0 "$p" 2>/dev/null; }',
    'for step in INT:50 TERM:30 KILL:30; do',
    '  alive || break',
    '  kill -s "${step%%:*}" -- "$t" 2>/dev/null || kill -s "${step%%:*}" "$p" 2>/dev/null',
    '  i=0; while [ $i -lt "${step#*:}" ] && alive; do sleep 0.1; i=$((i + 1)); done',
    'done',
    // Episode subprocesses that outlived the worker in its group.
    '[ "$t" = "-$w" ] && kill -s KILL -- "$t" 2>/dev/null',
    'exit 0',
  ].join('\n');
}
