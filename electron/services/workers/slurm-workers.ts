import { posix, relative, sep } from 'node:path';
import { AppError } from '../../shared/errors';
import type { SlurmJob } from '../../shared/schemas-slurm';
import type { PoolStart, SlurmArrayPreviewData, WorkerPlacementData } from '../../shared/schemas-workers';
import { shellQuote, type EngineHost } from '../engines/container-engine';
import { SshHost } from '../engines/engine-host';
import { parseEndpoint } from '../engines/slurm/slurm-client';
import { parseNodeAddr } from '../engines/slurm/slurm-parse';
import { envFileText } from '../native/native-scripts';
import { llmSecretEnv } from '../secrets/secret-env';
import type { SecretVaultApi } from '../secrets/vault-api';
import type { SFTPWrapper } from 'ssh2';
import type { SshConnection } from '../ssh/ssh-connection';
import { copyProject, projectManifest, projectName } from './project-copy';
import { slurmArrayName, slurmArrayScript, slurmArraySubmitCommand, slurmArraySubmitScript, slurmPollScript, slurmRunDir, slurmRunName, slurmStopScript, type SlurmPlacement } from './slurm-array-script';
import { taskQueueState, type SlurmTaskQueue } from './slurm-task-queue';
import type { WorkerBackend, WorkerHandle, WorkerPoll, WorkerStartSpec } from './worker-backend';
import type { WorkerNote } from '../../shared/schemas-workers';
import { notesLine, projectNote, workerNote } from './worker-notes';

export interface SlurmWorkersOptions {
  connectionOf: (serverId: string) => Promise<SshConnection>;
  labelOf: (serverId: string) => string;
  vault: SecretVaultApi;
  /** The login node's shared queue poll (slurm-task-queue.ts): the tasks' queue states, never an squeue per task. */
  queueOf: (serverId: string) => SlurmTaskQueue;
  now?: () => number;
}

const MAX_READ_BYTES = 1_000_000;
/** A pool's array name stays among the names the shared poll asks about this long after its last poll. */
const WANTED_MS = 120_000;
/**
 * A task Slurm no longer runs whose exit file is still missing is marked gone only after this long: a task that ended
 * by itself wrote its exit file first, but the login node may see a compute node's write a moment late (shared folders).
 */
const GONE_GRACE_MS = 10_000;

/**
 * Workers as one Slurm job array on a cluster's login node (issue 34): the project copied to the
 * login user's home (shared with the compute nodes), the array script (slurm-array-script.ts) shown
 * before submission, then `sbatch --array=0-(N-1)`. Each task is one worker: polled by its output file
 * and exit file (a file read on the login node, every poll), its queue state taken from the login node's
 * shared queue poll (no squeue of its own), stopped by SIGINT then `scancel` of its task id only, found
 * again after an app restart by its task id and run folder.
 */
export class SlurmWorkers implements WorkerBackend {
  private readonly now: () => number;
  /** When each task was submitted (ms; this run of the app only): a queue answer asked earlier cannot list it. */
  private readonly submittedAt = new Map<string, number>();
  /** When a task was first seen ended or missing in the queue without its exit file. */
  private readonly missingSince = new Map<string, number>();

  constructor(private readonly options: SlurmWorkersOptions) {
    this.now = options.now ?? Date.now;
  }

  where(placement: WorkerPlacementData): string {
    return placement.kind === 'slurm' ? `${this.options.labelOf(placement.serverId)} (Slurm)` : 'this computer';
  }

  private host(placement: SlurmPlacement): EngineHost {
    return new SshHost(this.options.labelOf(placement.serverId), () => this.options.connectionOf(placement.serverId));
  }

  /** One worker alone is an array of one. */
  async start(spec: WorkerStartSpec): Promise<WorkerHandle> {
    return (await this.startGroup([spec]))[0]!;
  }

  /** The script the array would be submitted with, and the command: what the user sees before submission. */
  async preview(request: PoolStart, poolId: string, tasks: { index: number; shareEnv: Record<string, string> }[], placement: SlurmPlacement, tag: string | null = null): Promise<SlurmArrayPreviewData> {
    const host = this.host(placement);
    const { workDir } = await this.projectPlace(host, request, null);
    const runName = slurmRunName(poolId, tasks[0]!.index, tag);
    const script = slurmArrayScript({ poolId, runName, placement, workDir, script: request.script, tasks });
    return { host: host.label, script, command: slurmArraySubmitCommand(runName), tasks: tasks.length };
  }

  /** Where the project is (copied when `copy`) on the login node, and the worker's folder inside it. */
  private async projectPlace(host: EngineHost, request: PoolStart, openSftp: (() => Promise<SFTPWrapper>) | null): Promise<{ workDir: string; note: WorkerNote | null }> {
    const projectDir = request.projectDir ?? request.cwd;
    const inside = relative(projectDir, request.cwd);
    if (inside.startsWith('..')) throw new AppError('VALIDATION_FAILED', `The worker's folder ${request.cwd} is not inside the project ${projectDir} that is copied to ${host.label}.`);
    const manifest = await projectManifest(projectDir, request.exclude);
    let remoteDir: string;
    let note: WorkerNote | null = null;
    if (openSftp) {
      const outcome = await copyProject(host, openSftp, manifest);
      remoteDir = outcome.remoteDir;
      note = projectNote(outcome);
    } else {
      const home = (await host.exec('printf %s "$HOME"', { timeoutMs: 30_000 })).stdout.trim();
      if (!home) throw new AppError('SSH_DISCONNECTED', `${host.label} did not say where its home folder is.`);
      remoteDir = `${home}/.agentswarm/projects/${projectName(projectDir)}/${manifest.hash}`;
    }
    return { workDir: inside === '' ? remoteDir : posix.join(remoteDir, ...inside.split(sep)), note };
  }

  /** Every task of one array: the project copied, the swarm URL as the nodes see it, one sbatch. */
  async startGroup(specs: WorkerStartSpec[]): Promise<WorkerHandle[]> {
    const first = specs[0]!;
    const placement = slurm(first.placement);
    const host = this.host(placement);
    const { request } = first;
    const { workDir, note } = await this.projectPlace(host, request, async () => (await this.options.connectionOf(placement.serverId)).sftp());
    const url = await this.swarmUrlFor(placement, request, host);
    const env: Record<string, string> = { AJET_SWARM_URL: url };
    if (request.remoteModelPath !== null) env.REMOTE_MODEL_PATH = request.remoteModelPath;
    if (request.llmSecretId !== null) Object.assign(env, await llmSecretEnv(this.options.vault, request.llmSecretId));
    const runName = slurmRunName(first.poolId, first.index, first.runTag ?? null);
    const script = slurmArrayScript({ poolId: first.poolId, runName, placement, workDir, script: request.script, tasks: specs });
    const submitting = this.now();
    const submitted = await host.exec(slurmArraySubmitScript(runName, script, specs.length), { stdin: envFileText(env), timeoutMs: 60_000 });
    const arrayId = (submitted.stdout.trim().split('\n').pop() ?? '').split(';')[0]?.trim() ?? '';
    if (submitted.code !== 0 || !/^\d+$/.test(arrayId)) {
      throw new AppError('JOB_CRASHED', `sbatch on ${host.label} refused the worker array: ${submitted.stderr.trim().split('\n').slice(-2).join(' ') || `exit ${submitted.code}`}.`);
    }
    const runDir = slurmRunDir(runName).shown;
    specs.forEach((_spec, task) => this.submittedAt.set(`${arrayId}_${task}`, submitting));
    return specs.map((_spec, task) => {
      const notes = [workerNote('slurmTask', { array: arrayId, task }), ...(note ? [note] : [])];
      return { pid: null, jobId: `${arrayId}_${task}`, runDir, logOffset: 0, note: notesLine(notes), notes, tunnelPort: null };
    });
  }

  /** AJET_SWARM_URL as the compute nodes see the server. */
  private async swarmUrlFor(placement: SlurmPlacement, request: PoolStart, host: EngineHost): Promise<string> {
    if (placement.reach.kind === 'direct') {
      const url = placement.reach.url.replace(/\/+$/, '');
      // One GET /health from the login node, with the workers' interpreter (the nodes are on its network).
      const probe = `import sys, urllib.request\ntry:\n    urllib.request.urlopen(sys.argv[1] + "/health", timeout=5).read()\nexcept Exception as e:\n    sys.exit(str(e))`;
      const checked = await host.exec(`${placement.python} -c ${shellQuote(probe)} ${shellQuote(url)}`, { timeoutMs: 30_000 });
      if (checked.code !== 0) {
        throw new AppError('SWARM_UNREACHABLE', `${host.label} cannot reach the swarm server at ${url} (GET /health: ${checked.stderr.trim().split('\n').slice(-1)[0] || `exit ${checked.code}`}). Give the address the compute nodes reach it at.`);
      }
      return url;
    }
    // The server is the app's Slurm job on this cluster (its container id is the job id): its node's address and port.
    const jobId = request.swarm.containerId;
    if (!/^\d+$/.test(jobId)) throw new AppError('VALIDATION_FAILED', `The swarm server ${jobId} is not a Slurm job, so "inside the cluster" has no address: give the URL the compute nodes reach it at.`);
    const found = await host.exec(
      [`n=$(scontrol -o show job ${jobId} 2>/dev/null | tr ' ' '\\n' | sed -n 's/^JobName=//p')`, '[ -n "$n" ] || exit 3', 'cat "$HOME/.agentswarm/slurm/$n/endpoint" 2>/dev/null', 'echo @@node', 'node=$(sed -n "s/^node=//p" "$HOME/.agentswarm/slurm/$n/endpoint" 2>/dev/null)', '[ -n "$node" ] && scontrol -o show node "$node"', 'exit 0'].join('\n'),
      { timeoutMs: 30_000 },
    );
    const [endpointText = '', nodeText = ''] = found.stdout.split('@@node\n');
    const endpoint = parseEndpoint(endpointText);
    if (found.code !== 0 || !endpoint || endpoint.jobId !== jobId) {
      throw new AppError('SWARM_UNREACHABLE', `Slurm job ${jobId} on ${host.label} has not written its address yet (or is not the app's swarm job): start the workers once the server runs.`);
    }
    const address = parseNodeAddr(nodeText) ?? endpoint.host;
    return `http://${address.includes(':') ? `[${address}]` : address}:${endpoint.port}`;
  }

  /**
   * The task's exit file and new log lines (one file read on the login node), and its queue state from the shared
   * poll's newest answer. The answer is taken BEFORE the files are read: when it says the task ended and the exit file
   * is still missing afterwards, the task did not end by itself (cancelled, killed, its node lost).
   */
  async poll(handle: WorkerHandle, spec: WorkerStartSpec): Promise<WorkerPoll> {
    const placement = slurm(spec.placement);
    const { runName, arrayId, task } = taskOf(handle);
    const queue = this.options.queueOf(placement.serverId);
    queue.want(slurmArrayName(spec.poolId), WANTED_MS);
    // The queue not answering (the login node reconnecting) says nothing about the task: its files still do.
    const seen = await queue.workerTasks().catch(() => null);
    const result = await this.host(placement).exec(slurmPollScript(runName, arrayId, task, handle.logOffset, MAX_READ_BYTES), { timeoutMs: 30_000 });
    if (result.code !== 0) throw new AppError('SSH_DISCONNECTED', `The worker on ${this.where(placement)} could not be asked: exit ${result.code}.`);
    const head = /^@@(noexit|exit (-?\d+))\n@@size (\d+)\n/.exec(result.stdout);
    if (!head) throw new AppError('SSH_DISCONNECTED', `The worker on ${this.where(placement)} answered something unexpected.`);
    const body = result.stdout.slice(head[0].length);
    const cut = body.lastIndexOf('\n');
    handle.logOffset += cut < 0 ? 0 : Buffer.byteLength(body.slice(0, cut + 1), 'utf8');
    const lines = cut <= 0 ? [] : body.slice(0, cut).split('\n');
    const ended = head[1] !== 'noexit';
    const gone = !ended && this.gone(handle.jobId!, seen, arrayId, task);
    if (!ended && !gone) return { lines, end: null };
    this.forget(handle.jobId!);
    if (cut < body.length - 1 && body.length > 0) lines.push(body.slice(cut + 1));
    if (gone) return { lines, end: { exitCode: null, signal: null, startError: null } };
    const code = Number(head[2]);
    return { lines, end: { exitCode: code, signal: code > 128 ? `signal ${code - 128}` : null, startError: null } };
  }

  /** Slurm no longer runs the task (ended, or not listed by an answer asked after its submission) for GONE_GRACE_MS. */
  private gone(jobId: string, seen: { tasks: SlurmJob[]; at: number } | null, arrayId: string, task: number): boolean {
    const state = seen ? taskQueueState(seen.tasks, arrayId, task) : 'active';
    const notRun = state === 'ended' || (state === 'absent' && seen!.at > (this.submittedAt.get(jobId) ?? 0));
    if (!notRun) {
      this.missingSince.delete(jobId);
      return false;
    }
    const since = this.missingSince.get(jobId) ?? this.now();
    this.missingSince.set(jobId, since);
    return this.now() - since >= GONE_GRACE_MS;
  }

  private forget(jobId: string): void {
    this.submittedAt.delete(jobId);
    this.missingSince.delete(jobId);
  }

  async stop(handle: WorkerHandle, spec: WorkerStartSpec): Promise<void> {
    const placement = slurm(spec.placement);
    const { runName } = taskOf(handle);
    const result = await this.host(placement).exec(slurmStopScript(runName, handle.jobId!), { timeoutMs: 90_000 });
    this.forget(handle.jobId!);
    if (result.code !== 0) throw new AppError('INTERNAL', `Slurm task ${handle.jobId} on ${this.where(placement)} still runs after scancel: ${result.stderr.trim()}`);
  }
}

function slurm(placement: WorkerPlacementData): SlurmPlacement {
  if (placement.kind !== 'slurm') throw new AppError('INTERNAL', 'A Slurm worker without a Slurm placement.');
  return placement;
}

function taskOf(handle: WorkerHandle): { runName: string; arrayId: string; task: number } {
  const m = /^(\d+)_(\d+)$/.exec(handle.jobId ?? '');
  const runName = handle.runDir?.split('/').pop() ?? '';
  if (!m || !runName) throw new AppError('INTERNAL', `A Slurm worker without its task id (${handle.jobId}) or run folder.`);
  return { runName, arrayId: m[1]!, task: Number(m[2]) };
}
