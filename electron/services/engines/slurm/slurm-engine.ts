import type { Duplex } from 'node:stream';
import { AppError } from '../../../shared/errors';
import type { EngineHealth, EngineSummary } from '../../../shared/schemas';
import type { SlurmJob, SlurmJobOptions, SlurmJobView } from '../../../shared/schemas-slurm';
import {
  LABEL_APP_VERSION,
  LABEL_PORT,
  shellQuote,
  type ContainerEngine,
  type ContainerEvent,
  type ContainerExecResult,
  type ContainerSpec,
  type ContainerSummary,
  type EngineGpuCheck,
  type EngineHost,
  type EngineInfo,
  type FollowLogOptions,
  type ImageInfo,
  type LogReadOptions,
  type PullEvent,
} from '../container-engine';
import type { EngineWording } from '../engine-wording';
import { JOB_LINE_MARK, SLURM_PORT_BASE, slurmJobName, slurmJobScript, slurmOutputPath } from './job-script';
import { SlurmClient } from './slurm-client';
import { mapSlurmError } from './slurm-errors';
import { followJobOutput, pathWord } from './slurm-log';
import { isEndedState } from './slurm-parse';
import { discardJob, removeJobFiles, writeRecord } from './slurm-files';
import { SlurmQueueWatch } from './slurm-queue-watch';
import { waitForStart } from './slurm-start';
import { diffEvents, keyOfJobName, summariesOf, toContainerSummary, type SlurmJobRecord } from './slurm-state';
import { checkJobGpus } from './slurm-gpu-check';
import { endFromOutput, slurmJobViews } from './slurm-job-views';
import { PROFILE_ID, jobKeyOf, jobOptionsOf } from './slurm-spec';
import { SlurmTunnels } from './slurm-tunnels';

/*
 * A Slurm cluster as a ContainerEngine: each "container" is one batch job submitted from the login node
 * over its SSH connection (the login node is `host`); the container id is the Slurm job id.
 *
 * | ContainerEngine            | Slurm                                                                                  |
 * |----------------------------|----------------------------------------------------------------------------------------|
 * | createContainer(spec)      | job.sh from `spec.batch` (defaults when absent; `runtime: 'native'` runs ajet-swarm    |
 * |                            | after `nativeActivate`, else Podman in the job; `cmd` must be `ajet-swarm start …`:   |
 * |                            | the script passes the port it chose on the node, not the spec's)                      |
 * |                            | → `sbatch --hold` (PENDING,                                                            |
 * |                            | JobHeldUser); labels.json written atomically next to job.sh; one active job per folder |
 * | startContainer(id)         | `scontrol release`, then waits briefly (startWaitMs) for RUNNING with its endpoint;    |
 * |                            | a job still queued (or running without its endpoint) is kept: the swarm services adopt |
 * |                            | it on its `start` event. A failed release or a job Slurm will never run is cancelled   |
 * |                            | and its folder removed (slurm-start.ts)                                                |
 * | list / inspect             | the queue poll's answer (slurm-queue-watch.ts) + every labels.json in one exec; PENDING →|
 * |                            | created ("queued: <reason>"), RUNNING/COMPLETING → running, ended → exited (OOM →      |
 * |                            | oomKilled); purged from squeue but folder kept → exited with what the output says      |
 * | stopContainer              | `scancel`, waiting (backoff) until the job left RUNNING/COMPLETING (KillWait bounds it)|
 * | removeContainer            | cancel if active, then remove the job folder (or only its output if a newer job owns it)|
 * | readLog / followLog        | the output file `out/<id>.out` over SSH; cursors are line numbers (no times in it)     |
 * | readContainerFile          | a file on the node read through the login node (clusters share home folders);          |
 * |                            | `swarm_server.log` is the job's output                                                 |
 * | watchEvents                | diffs the queue poll's answers: start / die (exit code) / oom / destroy                |
 * | execInContainer            | `srun --jobid=<id> --overlap <cmd>` (a step inside the job's allocation, on its node)  |
 * | health / info              | `sinfo --version` on the login node; no product (not a container engine)              |
 * | images                     | none needed: native runs use the node's AgentJet; a Podman job pulls on its node       |
 * | isHostPortFree             | true: the job picks a free port on its node itself                                     |
 * | urlForHostPort(port)       | our RUNNING job labelled io.agentswarm.port=<port> → its endpoint file (node, chosen   |
 * |                            | port) → NodeAddr → a 127.0.0.1 listener forwarding through the login node (forwardOut) |
 */

export interface SlurmEngineOptions {
  summary: EngineSummary;
  wording: EngineWording;
  /** The login node (an `SshHost` over its session's current connection). */
  host: EngineHost;
  /** A channel from the login node to `address:port` (forwardOut on the current connection). */
  openChannel: (address: string, port: number) => Promise<Duplex>;
  /** Written into each job's comment when the spec's labels carry no app version. */
  appVersion: string;
  /** Where the job's port search starts on the node (AgentJet's 10086 by default). */
  portBase?: number;
  /** How long startContainer waits for the released job to run and choose its port before it returns with the job queued (default 15 s). */
  startWaitMs?: number;
  /** How often the queue is polled while a window shows the server (default 30 s; slurm-queue-watch.ts). */
  eventPollMs?: number;
  /** How often the queue is polled while no window shows it (default 60 s). */
  hiddenPollMs?: number;
  /** Whether a window shows this server now (wired to the app's visibility later); default: always. */
  isShown?: () => boolean;
  /** How often followLog polls the output file (default 1 s; it asks Slurm nothing). */
  logPollMs?: number;
  now?: () => number;
}

const START_WAIT_MS = 15_000;
const START_POLL_MS = 500;
const EXEC_CAP_BYTES = 64 * 1024;
/** Exit code of our scripts for "file not there". */
const MISSING = 44;
const EXITED_LINE = new RegExp(`\\${JOB_LINE_MARK.slice(0, -1)}\\] (?:ajet-swarm|the container) exited with code (\\d+)`);

export class SlurmEngine implements ContainerEngine {
  /** Jobs wait in the queue, run without their address for a moment, or end at once: see ContainerEngine.queuesJobs. */
  readonly queuesJobs = true;
  readonly summary: EngineSummary;
  readonly wording: EngineWording;
  readonly host: EngineHost;
  private readonly client: SlurmClient;
  private readonly tunnels: SlurmTunnels;
  /** The one queue poll every reader shares (slurm-queue-watch.ts). */
  readonly queueWatch: SlurmQueueWatch;
  private readonly now: () => number;
  private readonly submitting = new Set<string>();
  /** Output tails of jobs that ended badly, by job id: an ended job's output does not change, so it is read once. */
  private readonly endedTails = new Map<string, string[]>();

  constructor(private readonly options: SlurmEngineOptions) {
    this.summary = options.summary;
    this.wording = options.wording;
    this.host = options.host;
    this.now = options.now ?? Date.now;
    this.client = new SlurmClient({ exec: (script, o) => options.host.exec(script, o), host: options.host.label, now: this.now, jobNames: () => this.queueWatch.activeNames() });
    this.queueWatch = new SlurmQueueWatch({
      host: options.host,
      client: this.client,
      now: this.now,
      ...(options.isShown ? { isShown: options.isShown } : {}),
      ...(options.eventPollMs !== undefined ? { shownMs: options.eventPollMs } : {}),
      ...(options.hiddenPollMs !== undefined ? { hiddenMs: options.hiddenPollMs } : {}),
    });
    this.tunnels = new SlurmTunnels(options.openChannel);
  }

  async health(): Promise<EngineHealth> {
    const base = { id: this.summary.id, apiVersion: null, product: null };
    try {
      const result = await this.host.exec('sinfo --version', { timeoutMs: 15_000 });
      if (result.code !== 0) throw mapSlurmError('sinfo', result, this.host.label);
      // "slurm-wlm 22.05.8" (Debian), "slurm 23.11.4" (upstream).
      const version = result.stdout.trim().replace(/^slurm(-wlm)?\s+/i, '') || null;
      return { ...base, reachable: true, version, error: null };
    } catch (error) {
      const e = error instanceof AppError ? error : new AppError('ENGINE_UNREACHABLE', `Cannot reach the login node ${this.host.label}: ${String((error as Error)?.message ?? error)}`);
      return { ...base, reachable: false, version: null, error: { code: e.code, message: e.message } };
    }
  }

  async info(): Promise<EngineInfo> {
    const health = await this.health();
    if (health.error) throw new AppError(health.error.code, health.error.message);
    return {
      operatingSystem: `Slurm ${health.version ?? ''} via ${this.host.label}`.replace(/\s+/g, ' '),
      osType: 'linux',
      serverVersion: health.version ?? '',
      rootDir: '~/.agentswarm/slurm',
      runtimes: [],
      defaultRuntime: '',
      cdiDevices: [],
      rootless: true,
    };
  }

  /** From the queue poll's newest answer (no squeue of its own while it is young). */
  async listContainers(labels: Record<string, string>): Promise<ContainerSummary[]> {
    return summariesOf(await this.queueWatch.read(), labels, this.now());
  }

  async inspectContainer(id: string): Promise<ContainerSummary> {
    const { job, record } = await this.find(id);
    const last = job === null ? await this.lastEnd(record!) : null;
    return toContainerSummary(job, record, this.now(), last?.exitCode ?? null, last?.state ?? null);
  }

  /** Native runs need no image; a Podman job pulls its image on the node when it starts (the node may not be this one's twin). */
  imageExists = (): Promise<boolean> => Promise.resolve(true);
  inspectImage = (): Promise<ImageInfo | null> => Promise.resolve(null);

  /** Nothing to pull from the login node: see imageExists. */
  pullImage(_image: string, _onEvent: (event: PullEvent) => void, signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.reject(new DOMException('The pull was cancelled.', 'AbortError'));
    return Promise.resolve();
  }

  async createContainer(spec: ContainerSpec): Promise<string> {
    const key = jobKeyOf(spec);
    const jobOptions = jobOptionsOf(spec);
    // Two creates for one folder (two windows) would both pass the check below before either job exists.
    if (this.submitting.has(key)) throw new AppError('CONTAINER_CONFLICT', `A Slurm job for ${slurmJobName(key)} is being submitted already.`);
    this.submitting.add(key);
    try {
      return await this.submit(spec, key, jobOptions);
    } finally {
      this.submitting.delete(key);
    }
  }

  private async submit(spec: ContainerSpec, key: string, jobOptions: SlurmJobOptions): Promise<string> {
    // One job per folder: its endpoint and labels files would be shared otherwise.
    // A fresh look (a user's action): the poll's answer may be older than another window's submission.
    const active = (await this.queueWatch.read(0)).jobs.find((j) => j.name === slurmJobName(key) && !isEndedState(j.state));
    if (active) {
      throw new AppError('CONTAINER_CONFLICT', `Slurm job ${active.id} (${slurmJobName(key)}) is still ${active.state.toLowerCase()}: stop it before submitting another.`);
    }
    const appVersion = spec.labels[LABEL_APP_VERSION] ?? this.options.appVersion;
    const script = slurmJobScript({ profileId: key, appVersion, envNames: Object.keys(spec.env) }, jobOptions, { portBase: this.options.portBase ?? SLURM_PORT_BASE });
    const { jobId } = await this.client.submit(script, { profileId: key, hold: true, env: spec.env });
    const record: SlurmJobRecord = { jobId, name: spec.name, key, labels: spec.labels, image: jobOptions.run.mode === 'podman' ? jobOptions.run.image : spec.image, createdAt: new Date(this.now()).toISOString() };
    try {
      await writeRecord(this.host, record);
    } catch (error) {
      await discardJob(this.host, jobId, key);
      throw error;
    } finally {
      this.queueWatch.recordsChanged();
    }
    return jobId;
  }

  /**
   * Lets the held job start and waits briefly (`startWaitMs`) until it runs and has written its endpoint, so
   * that on an idle cluster the swarm start flow gets the server's URL right away, as after `docker start`.
   * A job still queued (or running without its endpoint yet) is kept and start returns: the container is
   * `created` ("queued: Resources (position 1)") until it runs. A job that ends at once is kept (exited, with
   * its exit code and output), as Docker keeps such a container. A failed release, or a job Slurm will never
   * run (or no longer lists), is cancelled and its folder removed; the error says why.
   */
  async startContainer(id: string): Promise<void> {
    let key: string | null = null;
    try {
      key = (await this.find(id)).key;
      await this.client.release(id);
      const jobKey = key;
      const progress = await waitForStart({
        // One `scontrol show job` per look, 0.5, 1, 2, 4 s apart; a failed look is "not known yet" (never a cancel).
        look: async () => {
          try {
            const job = await this.client.showJob(id);
            return { job, endpointIsOurs: job?.state === 'RUNNING' && (await this.client.endpoint(jobKey))?.jobId === id };
          } catch (error) {
            return { unknown: `Slurm did not answer about it (${error instanceof Error ? error.message : String(error)})` };
          }
        },
        waitMs: this.options.startWaitMs ?? START_WAIT_MS,
        pollMs: START_POLL_MS,
        now: this.now,
      });
      if (progress.kind === 'rejected') {
        throw new AppError('CONTAINER_START_FAILED', `Slurm job ${id} cannot start (${progress.why}); it was cancelled. Check the partition, account and QoS with sinfo and sacctmgr on ${this.host.label}.`);
      }
    } catch (error) {
      // A failed start leaves nothing: no held job in the queue, no folder.
      key ??= (await this.find(id).catch(() => null))?.key ?? null;
      if (key) await discardJob(this.host, id, key);
      this.queueWatch.recordsChanged();
      throw error;
    } finally {
      // The job is about to change state: the poll looks now, not at its next turn.
      this.queueWatch.changed();
    }
  }

  /** The grace time is Slurm's (KillWait, set by the cluster's admins), not the caller's: scancel cannot shorten it. */
  async stopContainer(id: string, _timeoutSeconds?: number): Promise<void> {
    const { job } = await this.find(id);
    await this.tunnels.releaseJob(id);
    if (job && !isEndedState(job.state)) await this.client.cancel(id);
    this.queueWatch.changed();
  }

  async removeContainer(id: string): Promise<void> {
    const { job, key } = await this.find(id);
    await this.tunnels.releaseJob(id);
    if (job && !isEndedState(job.state)) await this.client.cancel(id);
    await removeJobFiles(this.host, id, key);
    this.queueWatch.recordsChanged();
    this.queueWatch.changed();
  }

  /** The output's newest lines. `sinceMs` is not applied: the output file has no per-line times (see slurm-log.ts). */
  async readLog(id: string, options: LogReadOptions): Promise<string[]> {
    const { key } = await this.find(id);
    return (await this.client.outputTail(slurmOutputPath(key, id), options.tail)) ?? [];
  }

  async followLog(id: string, options: FollowLogOptions): Promise<void> {
    const { key } = await this.find(id);
    // The job's end comes from the queue poll's answer (no squeue of its own).
    const jobEnded = async () => {
      const job = (await this.queueWatch.read()).jobs.find((j) => j.id === id);
      return job === undefined || isEndedState(job.state);
    };
    await followJobOutput((script) => this.host.exec(script), jobEnded, slurmOutputPath(key, id), options, this.options.logPollMs);
  }

  /** The queue poll's answers as Docker-style events (slurm-queue-watch.ts paces it; no squeue of its own). */
  watchEvents(labels: Record<string, string>, onEvent: (event: ContainerEvent) => void): () => void {
    let before: Map<string, ContainerSummary> | null = null;
    return this.queueWatch.subscribe((answer) => {
      const after = new Map(summariesOf(answer, labels, this.now()).map((c) => [c.id, c]));
      // The first answer is the baseline: like Docker's events API, only what happens after subscribing.
      if (before !== null) for (const event of diffEvents(before, after, this.now())) onEvent(event);
      before = after;
    });
  }

  /**
   * A file as the server on the node sees it. Home folders are shared between login and compute nodes
   * on the clusters we know, so it is read through the login node; relative paths are under $HOME
   * (the job's default working folder), and the swarm's `swarm_server.log` is the job's output.
   */
  async readContainerFile(id: string, path: string, maxBytes: number): Promise<string | null> {
    const { key } = await this.find(id);
    const file = /(^|\/)swarm_server\.log$/.test(path) ? pathWord(slurmOutputPath(key, id)) : path.startsWith('/') ? shellQuote(path) : `"$HOME"/${shellQuote(path)}`;
    const result = await this.host.exec(`f=${file}\n[ -f "$f" ] || exit ${MISSING}\ntail -c ${Math.max(1, Math.floor(maxBytes))} "$f"`);
    if (result.code === MISSING) return null;
    if (result.code !== 0) throw mapSlurmError('tail', result, this.host.label);
    return result.stdout;
  }

  /** A step inside the job's allocation, on its node (`srun --overlap`: alongside the server, not after it). */
  async execInContainer(id: string, cmd: string[], options: { timeoutMs: number }): Promise<ContainerExecResult> {
    const { job } = await this.find(id);
    if (!job || job.state !== 'RUNNING') throw new AppError('CONTAINER_NOT_FOUND', `Slurm job ${id} is ${job ? job.state.toLowerCase() : 'gone'}, not running: nothing to run a command in.`);
    const seconds = Math.max(1, Math.ceil(options.timeoutMs / 1000));
    // `timeout` on the login node ends srun (and so the step) when the app stops waiting; 124 says it did.
    const script = `timeout -k 5 ${seconds} srun --jobid=${id} --overlap --quiet ${cmd.map(shellQuote).join(' ')}`;
    const result = await this.host.exec(script, { timeoutMs: options.timeoutMs + 10_000 });
    return { code: result.code === 124 ? null : result.code, stdout: result.stdout.slice(-EXEC_CAP_BYTES), stderr: result.stderr.slice(-EXEC_CAP_BYTES) };
  }

  isHostPortFree(): Promise<boolean> {
    return Promise.resolve(true);
  }

  async urlForHostPort(port: number): Promise<string> {
    const ours = await this.listContainers({ [LABEL_PORT]: String(port) });
    const running = ours.find((c) => c.state === 'running');
    if (!running) {
      const queued = ours.find((c) => c.state === 'created');
      if (queued) throw new AppError('SWARM_UNREACHABLE', `Slurm job ${queued.id} for port ${port} waits in the queue (${queued.statusText}): it is reachable once it runs on a node.`);
      throw new AppError('SWARM_UNREACHABLE', `No Slurm job of the app runs for port ${port} on ${this.host.label}.`);
    }
    const { key } = await this.find(running.id);
    const endpoint = await this.client.endpoint(key);
    if (!endpoint || endpoint.jobId !== running.id) {
      throw new AppError('SWARM_UNREACHABLE', `Slurm job ${running.id} runs but has not chosen its port yet (no endpoint file in ${slurmJobName(key)}): try again in a few seconds.`);
    }
    const address = await this.client.nodeAddr(endpoint.node ?? endpoint.host);
    return this.tunnels.urlFor(port, { jobId: running.id, address, port: endpoint.port });
  }

  releaseHostPort(port: number): Promise<void> {
    return this.tunnels.release(port);
  }

  /** What the job was given (its allocation; slurm-gpu-check.ts), not nvidia-smi: a job gets its GPUs from Slurm. */
  verifyGpus(id: string, spec: Pick<ContainerSpec, 'gpus' | 'runtime' | 'batch'>): Promise<EngineGpuCheck> {
    return checkJobGpus(this.host, id, spec);
  }

  /** The app's jobs with their queue reason, node, time left and warnings (the Slurm server card). */
  jobViews(): Promise<SlurmJobView[]> {
    return slurmJobViews({ engineId: this.summary.id, answer: () => this.queueWatch.read(), client: this.client, tails: this.endedTails });
  }

  async dispose(): Promise<void> {
    this.queueWatch.dispose();
    await this.tunnels.closeAll();
  }

  /** Job `id` as Slurm knows it (null once forgotten) and its record; CONTAINER_NOT_FOUND when neither knows it. */
  private async find(id: string): Promise<{ job: SlurmJob | null; record: SlurmJobRecord | null; key: string }> {
    if (!/^\d+(_\d+)?$/.test(id)) throw new AppError('CONTAINER_NOT_FOUND', `"${id}" is not a Slurm job id.`);
    const answer = await this.queueWatch.read();
    const record = answer.records.get(id) ?? null;
    let job = answer.jobs.find((j) => j.id === id) ?? null;
    // Not in the answer (submitted since), or ended without its exit code (squeue's -o format lacks it): scontrol, once for an end.
    if (record && (job === null || (isEndedState(job.state) && job.exitCode === null))) job = await this.client.job(id, { maxAgeMs: this.queueWatch.maxAgeMs });
    const key = record?.key ?? (job ? keyOfJobName(job.name) : null);
    const removed = record === null && (job === null || isEndedState(job.state));
    if (removed || key === null || !PROFILE_ID.test(key)) throw new AppError('CONTAINER_NOT_FOUND', `Slurm job ${id} is not one the app started on ${this.host.label} (or it was removed).`);
    return { job, record, key };
  }

  /** A job Slurm forgot: the end its output's last lines tell (Slurm's own line names a time limit, node failure, …). */
  private async lastEnd(record: SlurmJobRecord): Promise<{ state: string | null; exitCode: number | null }> {
    const tail = (await this.client.outputTail(slurmOutputPath(record.key, record.jobId), 20).catch(() => null)) ?? [];
    const end = endFromOutput(tail);
    if (end) return end;
    const m = [...tail].reverse().map((line) => EXITED_LINE.exec(line)).find((x) => x !== null);
    return { state: null, exitCode: m ? Number(m[1]) : null };
  }
}
