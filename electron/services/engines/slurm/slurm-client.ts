import { randomBytes } from 'node:crypto';
import { AppError } from '../../../shared/errors';
import type { SlurmJob } from '../../../shared/schemas-slurm';
import { shellQuote, type HostExecResult } from '../container-engine';
import { slurmStateDirWord } from './job-script';
import { mapSlurmError, slurmRequestOf } from './slurm-errors';
import { isEndedState, parseKillWait, parseNodeAddr } from './slurm-parse';
import { SlurmQueue, type QueueFreshness } from './slurm-queue';

export type { QueueFreshness } from './slurm-queue';

/**
 * Runs a POSIX sh script on the login node: the shape of `EngineHost.exec` (an `SshHost` gives it over
 * SSH). `stdin` carries what must not be in the script (it is argv on the host, visible in ps).
 */
export type SlurmExec = (script: string, options?: { timeoutMs?: number; stdin?: string }) => Promise<HostExecResult>;

export interface SlurmClientOptions {
  exec: SlurmExec;
  /** How to name the login node in messages: "login1 (alice@hpc.example.org)". */
  host: string;
  /** ms since the epoch (time left is computed against it). */
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  /** The job names the queue is asked about (`squeue -n`); [] asks nothing; absent or null: every app job of the user. */
  jobNames?: () => Promise<readonly string[] | null>;
  /** How old queue positions may be (each costs a query over every user's pending jobs; default 3 min). */
  positionsMaxAgeMs?: number;
}

export interface SubmitOptions {
  profileId: string;
  /** `sbatch --hold`: queued but held; `release()` lets it start. */
  hold?: boolean;
  /** The server's environment: written to a 0600 file through stdin, read and deleted by the job at start. */
  env?: Record<string, string>;
}

export interface SubmitResult {
  jobId: string;
  /** Where the script and the output folder are, as a user types them (~/…). */
  scriptPath: string;
  outputDir: string;
}

/** What the job wrote on its node once it chose its port (the `endpoint` file). */
export interface SlurmEndpoint {
  jobId: string;
  /** Slurm's name for the node (SLURMD_NODENAME): what `nodeAddr()` resolves. */
  node: string | null;
  /** The node's own hostname. */
  host: string;
  port: number;
  startedAt: string | null;
}

/** The time-limit warning the job received (the `warning` file): when, and how many seconds before the limit. */
export interface SlurmTimeWarning {
  at: string;
  seconds: number;
}

const JOB_ID = /^\d+(_\d+)?$/;
const NODE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Exit code of our scripts for "file not there". */
const MISSING = 44;
/** Slurm's default KillWait, when `scontrol show config` does not say. */
const DEFAULT_KILL_WAIT_SECONDS = 30;
/** Cancel's waits: 0.2, 0.4, 0.8 … s, at most this long (each look is one controller request). */
const CANCEL_FIRST_WAIT_MS = 200;
const CANCEL_MAX_WAIT_MS = 5000;
const TIMEOUT_MS = 30_000;

/**
 * `sbatch --hold` accepts a job no node can ever run (more GPUs than any node has): released, it pends for
 * ever as BadConstraints (measured on 22.05). `--test-only` first, which refuses it as a plain sbatch would
 * ("allocation failure: Requested node configuration is not available"); only that refusal counts: for any
 * other answer (limits, a busy queue) the held submission decides, as it did before.
 */
const HELD_SUBMIT = [
  'probe=$(sbatch --test-only job.sh 2>&1)',
  'case $probe in',
  '  *"allocation failure: Requested node configuration is not available"*)',
  '    echo "sbatch: error: Batch job submission failed: Requested node configuration is not available" >&2; rc=1 ;;',
  '  *) sbatch --parsable --hold job.sh; rc=$? ;;',
  'esac',
];

function assertJobId(id: string): string {
  if (!JOB_ID.test(id)) throw new AppError('VALIDATION_FAILED', `"${id}" is not a Slurm job id (digits, or 123_4 for an array task).`);
  return id;
}

function heredoc(file: string, content: string): string {
  const end = `AGENTSWARM_EOF_${randomBytes(6).toString('hex')}`;
  return `cat >${file} <<'${end}'\n${content.endsWith('\n') ? content.slice(0, -1) : content}\n${end}`;
}

/** A path as a shell word: `~/x` keeps $HOME expanding on the host, everything else is quoted whole. */
function pathWord(path: string): string {
  return path.startsWith('~/') ? `"$HOME"/${shellQuote(path.slice(2))}` : shellQuote(path);
}

function envFileText(env: Record<string, string>): string {
  return Object.entries(env)
    .map(([name, value]) => {
      if (!ENV_NAME.test(name)) throw new AppError('VALIDATION_FAILED', `"${name}" is not a valid environment variable name.`);
      return `export ${name}=${shellQuote(value)}\n`;
    })
    .join('');
}

/** `key=value` lines of the endpoint file. */
export function parseEndpoint(text: string): SlurmEndpoint | null {
  const kv = new Map<string, string>();
  for (const line of text.split('\n')) {
    const eq = line.indexOf('=');
    if (eq > 0) kv.set(line.slice(0, eq).trim(), line.slice(eq + 1).trim());
  }
  const port = Number(kv.get('port'));
  const jobId = kv.get('job') ?? '';
  if (!JOB_ID.test(jobId) || !Number.isInteger(port) || port < 1 || port > 65535) return null;
  const started = Number(kv.get('started'));
  return { jobId, node: kv.get('node') || null, host: kv.get('host') ?? '', port, startedAt: started > 0 ? new Date(started * 1000).toISOString() : null };
}

/**
 * sbatch, squeue, scontrol and scancel on a login node. Stateless apart from the answers kept per client: the login
 * user, KillWait, and the queue (slurm-queue.ts: the newest answer, shared with callers that can take it at its age,
 * and the ends of jobs, asked once).
 */
export class SlurmClient {
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;
  private userName: string | null = null;
  private killWait: number | null = null;
  private readonly slurmQueue: SlurmQueue;

  constructor(private readonly options: SlurmClientOptions) {
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
    this.slurmQueue = new SlurmQueue({
      exec: options.exec,
      host: options.host,
      user: () => this.user(),
      now: this.now,
      ...(options.jobNames ? { jobNames: options.jobNames } : {}),
      ...(options.positionsMaxAgeMs !== undefined ? { positionsMaxAgeMs: options.positionsMaxAgeMs } : {}),
    });
  }

  /** When the newest queue answer was asked for (ms), null before the first. */
  get queueAskedAt(): number | null {
    return this.slurmQueue.askedAt;
  }

  /** The app changed a job (released, cancelled): the shared queue answer is no longer true. */
  forgetQueue(): void {
    this.slurmQueue.forget();
  }

  /** The end kept for job `id` (null: Slurm forgot it); undefined while it is not known to have ended. */
  knownEnd(id: string): SlurmJob | null | undefined {
    return this.slurmQueue.knownEnd(id);
  }

  /** Writes `script` as the profile's job.sh (making its output folder), then `sbatch --parsable`; the job id. */
  async submit(script: string, options: SubmitOptions): Promise<SubmitResult> {
    const dir = slurmStateDirWord(options.profileId);
    const env = options.env && Object.keys(options.env).length > 0 ? envFileText(options.env) : null;
    const lines = [
      `d=${dir}`,
      '[ -n "$HOME" ] || { echo "HOME is not set" >&2; exit 1; }',
      // A folder made for this submission goes again if sbatch refuses the job; an older job's folder stays (its output, labels).
      'fresh=0; [ -d "$d" ] || fresh=1',
      'mkdir -p "$d/out" && chmod 700 "$d" || exit 1',
      heredoc('"$d/job.sh.tmp"', script),
      'mv -f "$d/job.sh.tmp" "$d/job.sh" || exit 1',
      env === null ? 'rm -f "$d/env"' : '(umask 077 && cat >"$d/env") || exit 1',
      'cd "$d" || exit 1',
      ...(options.hold ? HELD_SUBMIT : ['sbatch --parsable job.sh', 'rc=$?']),
      // Refused: no job will read the env file (the server's secrets), so it must not stay on the cluster's disk.
      'if [ "$rc" -ne 0 ]; then rm -f "$d/env"; [ "$fresh" = 1 ] && cd / && rm -rf "$d"; fi',
      'exit "$rc"',
    ];
    const result = await this.options.exec(lines.join('\n'), { timeoutMs: TIMEOUT_MS, ...(env === null ? {} : { stdin: env }) });
    if (result.code !== 0) throw await this.submitError(result, script);
    // `--parsable`: "<id>" or "<id>;<cluster>"; warnings go to stderr.
    const jobId = (result.stdout.trim().split('\n').pop() ?? '').split(';')[0]?.trim() ?? '';
    if (!JOB_ID.test(jobId)) throw new AppError('INTERNAL', `sbatch on ${this.options.host} printed no job id (${result.stdout.trim().slice(0, 80) || 'nothing'}).`);
    const shown = `~/.agentswarm/slurm/agentswarm-${options.profileId}`;
    return { jobId, scriptPath: `${shown}/job.sh`, outputDir: `${shown}/out` };
  }

  /**
   * sbatch's refusal, naming what the script asked for; for "Requested node configuration is not
   * available" also what the nodes have (one `sinfo`, best effort: the refusal is the error either way).
   */
  private async submitError(result: HostExecResult, script: string): Promise<AppError> {
    const request = slurmRequestOf(script);
    let nodes: string | null = null;
    if (/Requested node configuration is not available/i.test(`${result.stderr}\n${result.stdout}`)) {
      const partition = request.partition ? ` -p ${shellQuote(request.partition)}` : '';
      const sinfo = await this.options.exec(`sinfo -h${partition} -o '%P %G %c %m'`, { timeoutMs: 10_000 }).catch(() => null);
      nodes = sinfo?.code === 0 ? [...new Set(sinfo.stdout.trim().split('\n'))].join('\n') : null;
    }
    return mapSlurmError('sbatch', result, this.options.host, { request, nodes });
  }

  /** `scontrol release`: a held job may start. */
  async release(jobId: string): Promise<void> {
    await this.run('scontrol', `scontrol release ${assertJobId(jobId)}`);
  }

  /** The login user's name (jobs are filtered to it). */
  async user(): Promise<string> {
    if (this.userName === null) this.userName = (await this.run('id', 'id -un')).stdout.trim();
    return this.userName;
  }

  /** The app's jobs of the login user (see `jobNames`) with their queue position: one `squeue` unless a young enough answer is shared. */
  queue(fresh: QueueFreshness = {}): Promise<SlurmJob[]> {
    return this.slurmQueue.jobs(fresh);
  }

  /** The rollout workers' array tasks from the same shared answer as `queue` (slurm-queue.ts), and when it was asked for. */
  workerTasks(fresh: QueueFreshness = {}): Promise<{ tasks: SlurmJob[]; at: number }> {
    return this.slurmQueue.workerTasks(fresh);
  }

  /** The app's jobs of the login user, newest first. */
  async jobs(fresh: QueueFreshness = {}): Promise<SlurmJob[]> {
    return (await this.queue(fresh)).sort((a, b) => Number(b.id.split('_')[0]) - Number(a.id.split('_')[0]));
  }

  /**
   * One job: from the queue while it is active; ended, from `scontrol -o show job` once (the exit code the `-o`
   * format lacks), then kept. null when Slurm has forgotten it (MinJobAge after its end: "Invalid job id specified").
   */
  job(jobId: string, fresh: QueueFreshness = {}): Promise<SlurmJob | null> {
    return this.slurmQueue.job(assertJobId(jobId), fresh);
  }

  /** The address the login node reaches `node` at (NodeAddr; the name when Slurm has none). */
  async nodeAddr(node: string): Promise<string> {
    if (!NODE_NAME.test(node)) throw new AppError('VALIDATION_FAILED', `"${node}" is not a Slurm node name.`);
    const addr = parseNodeAddr((await this.run('scontrol', `scontrol -o show node ${shellQuote(node)}`)).stdout);
    if (!addr) throw new AppError('INTERNAL', `scontrol on ${this.options.host} does not describe node ${node}.`);
    return addr;
  }

  /** Slurm's KillWait: how long a job may take to stop after SIGTERM before it is killed. */
  async killWaitSeconds(): Promise<number> {
    if (this.killWait === null) {
      this.killWait = parseKillWait((await this.run('scontrol', 'scontrol show config')).stdout) ?? DEFAULT_KILL_WAIT_SECONDS;
    }
    return this.killWait;
  }

  /**
   * `scancel`, then waits (KillWait + 10 s at most) until the job left PENDING/RUNNING/COMPLETING, looking with
   * `scontrol show job` (one controller request) after 0.2, 0.4, 0.8 … s (at most 5 s apart): a job ends in well under
   * a second when its server stops at SIGTERM, and one that does not takes KillWait, so faster looks would only load
   * the controller. The job as last seen: CANCELLED with its exit code (kept for every later answer), or null once
   * Slurm forgot it.
   */
  async cancel(jobId: string): Promise<SlurmJob | null> {
    assertJobId(jobId);
    const result = await this.options.exec(`scancel ${jobId}`, { timeoutMs: TIMEOUT_MS });
    if (result.code !== 0 && !/already completing or completed/i.test(result.stderr)) {
      const error = mapSlurmError('scancel', result, this.options.host);
      if (error.code !== 'CONTAINER_NOT_FOUND') throw error;
    }
    const deadline = this.now() + ((await this.killWaitSeconds()) + 10) * 1000;
    for (let wait = CANCEL_FIRST_WAIT_MS; ; wait = Math.min(CANCEL_MAX_WAIT_MS, wait * 2)) {
      await this.sleep(Math.max(0, Math.min(wait, deadline - this.now())));
      const job = await this.slurmQueue.show(jobId);
      if (!job || isEndedState(job.state)) return job;
      if (this.now() >= deadline) {
        throw new AppError('INTERNAL', `Slurm job ${jobId} is still ${job.state} ${Math.round((await this.killWaitSeconds()) + 10)} s after scancel: ask the cluster's admins to check node ${job.node ?? '(none)'}.`);
      }
    }
  }

  /** `scontrol -o show job`: one job as the controller knows it now (one request; an ended job is kept). null once forgotten. */
  showJob(jobId: string): Promise<SlurmJob | null> {
    return this.slurmQueue.show(assertJobId(jobId));
  }

  /** The endpoint file and the time-limit warning of the profile's job, in one round trip. */
  async jobFiles(profileId: string): Promise<{ endpoint: SlurmEndpoint | null; warning: SlurmTimeWarning | null }> {
    const d = slurmStateDirWord(profileId);
    const { stdout } = await this.run('cat', `d=${d}\ncat "$d/endpoint" 2>/dev/null\necho @@warning\ncat "$d/warning" 2>/dev/null\nexit 0`);
    const [endpointText = '', warningText = ''] = stdout.split('@@warning\n');
    const [at, seconds] = warningText.trim().split(/\s+/).map(Number);
    const warning = at && seconds !== undefined && Number.isFinite(seconds) ? { at: new Date(at * 1000).toISOString(), seconds } : null;
    return { endpoint: parseEndpoint(endpointText), warning };
  }

  async endpoint(profileId: string): Promise<SlurmEndpoint | null> {
    return (await this.jobFiles(profileId)).endpoint;
  }

  /** The last `lines` lines of a job's output file (absolute or ~/…); null when the file does not exist. */
  async outputTail(path: string, lines: number): Promise<string[] | null> {
    if (!/^(\/|~\/)/.test(path) || path.includes('\0')) throw new AppError('VALIDATION_FAILED', `"${path}" is not an absolute or ~/ path.`);
    const n = Math.max(1, Math.min(10_000, Math.floor(lines)));
    const p = pathWord(path);
    const result = await this.options.exec(`[ -f ${p} ] || exit ${MISSING}\ntail -n ${n} -- ${p}`, { timeoutMs: TIMEOUT_MS });
    if (result.code === MISSING) return null;
    if (result.code !== 0) throw mapSlurmError('tail', result, this.options.host);
    return result.stdout.split('\n').filter((l, i, all) => l !== '' || i < all.length - 1);
  }

  private async run(command: string, script: string): Promise<HostExecResult> {
    const result = await this.options.exec(script, { timeoutMs: TIMEOUT_MS });
    if (result.code !== 0) throw mapSlurmError(command, result, this.options.host);
    return result;
  }
}
