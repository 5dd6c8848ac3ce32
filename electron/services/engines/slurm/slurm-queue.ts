import type { SlurmJob } from '../../../shared/schemas-slurm';
import { shellQuote, type HostExecResult } from '../container-engine';
import { mapSlurmError } from './slurm-errors';
import { SQUEUE_FIELDS_LONG, SQUEUE_FORMAT, isAppJob, isEndedState, isWorkerArrayJob, parseScontrolJob, parseSqueueLines, parseSqueueLong, withPendingPositions } from './slurm-parse';

/*
 * What the app asks slurmctld about its jobs, and the answers it keeps so that it asks rarely. Measured on the
 * test bed's 22.05 with sdiag (issue 31):
 *
 * | command                                                      | controller requests          |
 * |--------------------------------------------------------------|------------------------------|
 * | `squeue --json` (22.05 ignores -u, -j, --name: every job)    | 1 JOB_INFO (the whole table) |
 * | `squeue -u U -n N -t all -o F` (or `-O`)                     | 3: FED_INFO, JOB_USER_INFO, PARTITION_INFO |
 * | the same with `--local`                                      | 2: JOB_USER_INFO, PARTITION_INFO |
 * | `scontrol --local -o show job <id>`                          | 1 JOB_INFO_SINGLE            |
 *
 * So one `squeue --local -u $USER -n <our job names>` per interval answers for all of the app's jobs (the user's
 * jobs only, filtered by slurmctld, not the whole table `--json` sends on 22.05). The `-o` format has no exit code:
 * an ended job is asked once with scontrol, and its end is kept (an ended job never changes). Queue positions need
 * every user's pending jobs: asked only while one of ours waits, at most every `positionsMaxAgeMs` (3 min).
 * The rollout workers' job arrays (issue 34) are asked about in the same squeue (their names among `jobNames`); their
 * tasks are kept apart from the server jobs (`workerTasks`), so a worker pool costs the controller no request of its own.
 */

/** Runs a script on the login node (SlurmClient's exec). */
export type QueueExec = (script: string, options?: { timeoutMs?: number }) => Promise<HostExecResult>;

export interface SlurmQueueOptions {
  exec: QueueExec;
  /** How to name the login node in messages. */
  host: string;
  /** The login user (`id -un`, asked once by the client). */
  user: () => Promise<string>;
  /** The job names to ask about (`-n`); [] asks nothing; null: every app job of the user. */
  jobNames?: () => Promise<readonly string[] | null>;
  /** How old queue positions may be (they cost a query over every user's pending jobs). Default 3 min. */
  positionsMaxAgeMs?: number;
  now: () => number;
}

/** How old a shared queue answer a caller can take (0, the default: a new `squeue`). */
export interface QueueFreshness {
  maxAgeMs?: number;
}

const TIMEOUT_MS = 30_000;
const POSITIONS_MAX_AGE_MS = 180_000;
/** sbatch --hold: no place in the queue until released. */
const HELD = 'JobHeldUser';
const UNKNOWN_OPTION = /unrecognized option|invalid option|unknown option/i;

interface Answer {
  askedAt: number;
  /** The names asked about; null: all of the user's app jobs. */
  names: ReadonlySet<string> | null;
  jobs: Promise<SlurmJob[]>;
}

export class SlurmQueue {
  private last: Answer | null = null;
  /** Ended jobs as last seen (null: Slurm forgot it): they never change again, so they are asked once. */
  private readonly ended = new Map<string, SlurmJob | null>();
  private positions: { askedAt: number; byId: Map<string, number>; asking: Promise<void> | null } = { askedAt: -Infinity, byId: new Map(), asking: null };
  /** null until tried: whether this Slurm knows `--local` (17.11+; outside a federation it changes nothing). */
  private localWorks: boolean | null = null;

  constructor(private readonly options: SlurmQueueOptions) {}

  /** When the newest queue answer was asked for (ms), null before the first. */
  get askedAt(): number | null {
    return this.last?.askedAt ?? null;
  }

  /** The end kept for job `id` (null: Slurm forgot it), undefined while it is not known to have ended. */
  knownEnd(id: string): SlurmJob | null | undefined {
    return this.ended.get(id);
  }

  /** The app changed a job (released, cancelled): the next reader asks anew, whatever age it takes. */
  forget(): void {
    this.last = null;
  }

  /** Keeps what the app learnt about an ended job elsewhere (scancel's wait): every later answer shows it. */
  noteEnded(job: SlurmJob): void {
    if (isEndedState(job.state)) this.ended.set(job.id, job);
  }

  /** The app's jobs of the login user (of `jobNames` when given), with queue positions; ended ones as kept. */
  async jobs(fresh: QueueFreshness = {}): Promise<SlurmJob[]> {
    const names = (await this.options.jobNames?.()) ?? null;
    if (names !== null && names.length === 0) return [];
    const listed = (await this.answer(names, fresh.maxAgeMs ?? 0)).jobs.filter((job) => !isWorkerArrayJob(job, null));
    const jobs = listed.map((job) => this.ended.get(job.id) ?? job);
    return this.withPositions(jobs);
  }

  /**
   * The rollout workers' array tasks (`812_1`; pending ones grouped as `812_[2-3]`) from the same answer as `jobs`,
   * and when it was asked for. No positions, no kept ends: a worker's end is its exit file.
   */
  async workerTasks(fresh: QueueFreshness = {}): Promise<{ tasks: SlurmJob[]; at: number }> {
    const names = (await this.options.jobNames?.()) ?? null;
    if (names !== null && names.length === 0) return { tasks: [], at: this.options.now() };
    const { jobs, askedAt } = await this.answer(names, fresh.maxAgeMs ?? 0);
    return { tasks: jobs.filter((job) => isWorkerArrayJob(job, null)), at: askedAt };
  }

  /**
   * One job: from the queue answer while it is active; once ended, from scontrol (asked once: its exit code, which
   * squeue's `-o` format lacks) and kept. null when Slurm has forgotten it (MinJobAge after its end).
   */
  async job(id: string, fresh: QueueFreshness = {}): Promise<SlurmJob | null> {
    const kept = this.ended.get(id);
    if (kept !== undefined) return kept;
    const listed = (await this.jobs(fresh)).find((j) => j.id === id) ?? null;
    if (listed && !isEndedState(listed.state)) return listed;
    return this.show(id, listed);
  }

  /** `scontrol -o show job`: the job with its exit code; an ended or forgotten one is kept. */
  async show(id: string, listed: SlurmJob | null = null): Promise<SlurmJob | null> {
    const result = await this.run(`SLURM_TIME_FORMAT=%s scontrol ${this.local()}-o show job ${id}`);
    let job: SlurmJob | null;
    if (result.code !== 0) {
      const error = mapSlurmError('scontrol', result, this.options.host);
      if (error.code !== 'CONTAINER_NOT_FOUND') throw error;
      job = listed;
    } else {
      const shown = parseScontrolJob(result.stdout, this.options.now());
      job = shown ? { ...shown, pendingPosition: listed?.pendingPosition ?? null } : listed;
    }
    if (job === null || isEndedState(job.state)) this.ended.set(id, job);
    return job;
  }

  /** The shared answer when it is young enough and asked about these names, else a new squeue. */
  private async answer(names: readonly string[] | null, maxAgeMs: number): Promise<{ jobs: SlurmJob[]; askedAt: number }> {
    const last = this.last;
    const covers = last !== null && (last.names === null || (names !== null && names.every((n) => last.names!.has(n))));
    const entry: Answer =
      last && covers && maxAgeMs > 0 && this.options.now() - last.askedAt <= maxAgeMs
        ? last
        : { askedAt: this.options.now(), names: names === null ? null : new Set(names), jobs: this.ask(names) };
    if (entry !== last) {
      this.last = entry;
      // A failed answer is not shared: the next caller asks again.
      entry.jobs.catch(() => {
        if (this.last === entry) this.last = null;
      });
    }
    const jobs = await entry.jobs;
    if (names === null || entry.names === null) return { jobs, askedAt: entry.askedAt };
    const wanted = new Set(names);
    return { jobs: jobs.filter((j) => wanted.has(j.name)), askedAt: entry.askedAt };
  }

  private async ask(names: readonly string[] | null): Promise<SlurmJob[]> {
    const user = await this.options.user();
    const byName = names === null ? '' : ` -n ${shellQuote(names.join(','))}`;
    const script = `SLURM_TIME_FORMAT=%s squeue ${this.local()}-u ${shellQuote(user)}${byName} -h -t all -O ${shellQuote(SQUEUE_FIELDS_LONG)}`;
    const result = await this.run(script);
    if (result.code !== 0) throw mapSlurmError('squeue', result, this.options.host);
    return parseSqueueLong(result.stdout).filter((j) => isAppJob(j, user) || isWorkerArrayJob(j, user));
  }

  /** Pending jobs get their place from the newest positions answer; a new one when it is old or misses one of them. */
  private async withPositions(jobs: SlurmJob[]): Promise<SlurmJob[]> {
    const waiting = jobs.filter((j) => j.state === 'PENDING' && j.reason !== HELD);
    if (waiting.length === 0) return jobs.map((j) => (j.pendingPosition === null ? j : { ...j, pendingPosition: null }));
    const old = this.options.now() - this.positions.askedAt > (this.options.positionsMaxAgeMs ?? POSITIONS_MAX_AGE_MS);
    if (old || waiting.some((j) => !this.positions.byId.has(j.id))) await this.askPositions(waiting);
    return jobs.map((j) => (waiting.includes(j) ? { ...j, pendingPosition: this.positions.byId.get(j.id) ?? null } : j));
  }

  private askPositions(waiting: SlurmJob[]): Promise<void> {
    if (this.positions.asking) return this.positions.asking;
    const partitions = [...new Set(waiting.map((j) => j.partition))];
    const byPartition = partitions.every((p) => p !== null) ? ` -p ${shellQuote(partitions.join(','))}` : '';
    const asking = (async () => {
      const result = await this.run(`SLURM_TIME_FORMAT=%s squeue ${this.local()}-h -t PD${byPartition} -o ${shellQuote(SQUEUE_FORMAT)}`);
      // Positions are a hint: without them the jobs still show why they wait.
      const pending = result.code === 0 ? parseSqueueLines(result.stdout) : null;
      const byId = new Map<string, number>();
      if (pending) for (const j of withPendingPositions(waiting, pending)) if (j.pendingPosition !== null) byId.set(j.id, j.pendingPosition);
      this.positions = { askedAt: this.options.now(), byId, asking: null };
    })().finally(() => {
      this.positions.asking = null;
    });
    this.positions.asking = asking;
    return asking;
  }

  private local(): string {
    return this.localWorks === false ? '' : '--local ';
  }

  /** Runs a Slurm command; a Slurm that does not know `--local` (older than 17.11) is asked again without it, for good. */
  private async run(script: string): Promise<HostExecResult> {
    const result = await this.options.exec(script, { timeoutMs: TIMEOUT_MS });
    if (this.localWorks === null && result.code === 0) this.localWorks = script.includes('--local ');
    if (result.code !== 0 && this.localWorks !== false && UNKNOWN_OPTION.test(result.stderr) && /local/.test(result.stderr)) {
      this.localWorks = false;
      return this.options.exec(script.replace('--local ', ''), { timeoutMs: TIMEOUT_MS });
    }
    return result;
  }
}
