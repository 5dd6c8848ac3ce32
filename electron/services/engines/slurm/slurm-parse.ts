import { AppError } from '../../../shared/errors';
import { SLURM_FINAL_STATES, type SlurmJob } from '../../../shared/schemas-slurm';
import { SLURM_JOB_PREFIX, parseJobComment } from './job-script';

/**
 * Parsers for what Slurm's commands print, into the one `SlurmJob` shape: `squeue --json` (22.05's
 * openapi v0.0.38, and the object forms newer versions use), the plain `squeue -o` fallback for Slurm
 * without --json, and `scontrol -o show job|node`. Pure: the fixtures in the unit tests are real output
 * of the test bed's Slurm.
 */

/**
 * The fallback's fields, `|`-separated, comment last (it is the one free-text field: a `|` in someone's
 * comment stays inside it). Run with SLURM_TIME_FORMAT=%s so times are epoch seconds, not local time.
 */
export const SQUEUE_FORMAT = '%i|%j|%u|%P|%T|%r|%N|%l|%L|%V|%S|%e|%Q|%b|%k';
const SQUEUE_FIELDS = 15;

/**
 * The same fields in `squeue -O` (`--Format`) form, with `tres-per-job` before the comment: a job that asked for GPUs
 * with `--gpus=N` has them there, not in `%b` (tres-per-node), which the `-o` form alone can print. `:|` is each
 * field's suffix (no width: values are not cut). Measured on 22.05: the same controller requests as `-o`.
 * `JobArrayID`, not `JobID`: for a job array's task `JobID` prints Slurm's internal id of that task (a number no other
 * command shows), `JobArrayID` prints what `%i`, scancel and the rollout workers use (`812_1`, the pending rest as
 * `812_[2-3]`); for any other job both print the job id.
 */
export const SQUEUE_FIELDS_LONG =
  'JobArrayID:|,Name:|,UserName:|,Partition:|,State:|,Reason:|,NodeList:|,TimeLimit:|,TimeLeft:|,SubmitTime:|,StartTime:|,EndTime:|,PriorityLong:|,tres-per-node:|,tres-per-job:|,Comment:|';

/** `squeue -h -O SQUEUE_FIELDS_LONG` lines: as `parseSqueueLines`, the GPUs from tres-per-job when tres-per-node has none. */
export function parseSqueueLong(stdout: string): SlurmJob[] {
  const jobs: SlurmJob[] = [];
  for (const line of stdout.split('\n')) {
    const parts = line.replace(/\|$/, '').split('|');
    if (parts.length < SQUEUE_FIELDS + 1) continue;
    const perJob = parts.splice(SQUEUE_FIELDS - 1, 1)[0] ?? '';
    const [job] = parseSqueueLines(parts.join('|'));
    if (job) jobs.push({ ...job, gres: job.gres ?? text(perJob) });
  }
  return jobs;
}

type Json = Record<string, unknown>;

/** Slurm's "no value" words in text output. */
const NONE = new Set(['', 'N/A', 'n/a', '(null)', 'None', 'Unknown', 'NONE', '(None)', 'INVALID', 'NOT_SET']);

function text(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const t = value.trim();
  return NONE.has(t) ? null : t;
}

/** A number as 22.05 prints it (plain) or as newer versions do (`{set, infinite, number}`); null when unset or infinite. */
function num(value: unknown): number | null {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (value && typeof value === 'object') {
    const v = value as Json;
    if (v.infinite === true || v.set === false) return null;
    return num(v.number);
  }
  return null;
}

/** Epoch seconds → ISO; 0 and unset mean "no time". */
function isoOf(epochSeconds: number | null): string | null {
  return epochSeconds && epochSeconds > 0 ? new Date(epochSeconds * 1000).toISOString() : null;
}

/**
 * Slurm durations as squeue and scontrol print them: `M:SS`, `H:MM:SS`, `D-HH:MM:SS` (and `D-HH`,
 * `D-HH:MM` in input forms); null for UNLIMITED, INVALID, NOT_SET and anything else.
 */
export function parseSlurmDuration(value: string): number | null {
  const m = /^(?:(\d+)-)?(\d+)(?::(\d+))?(?::(\d+))?$/.exec(value.trim());
  if (!m) return null;
  const [, days, a, b, c] = m;
  const d = Number(days ?? 0) * 86400;
  if (days !== undefined) return d + Number(a) * 3600 + Number(b ?? 0) * 60 + Number(c ?? 0);
  if (c !== undefined) return Number(a) * 3600 + Number(b) * 60 + Number(c);
  if (b !== undefined) return Number(a) * 60 + Number(b);
  // A bare number: minutes (the input form and `%l` of some versions).
  return Number(a) * 60;
}

/** `%j` and friends in an --output pattern, for the fields squeue --json leaves unexpanded. */
export function expandOutputPattern(pattern: string | null, job: { id: string; name: string; user: string | null }): string | null {
  if (!pattern) return null;
  return pattern.replace(/%(%|j|A|x|u)/g, (_, k: string) =>
    k === '%' ? '%' : k === 'x' ? job.name : k === 'u' ? (job.user ?? '%u') : job.id,
  );
}

/** The script's exit code and the signal from Slurm's raw wait status (`exit_code` of 22.05's JSON: 127:0 is 32512). */
export function decodeWaitStatus(status: number): { exitCode: number; signal: number } {
  return { exitCode: (status >> 8) & 0xff, signal: status & 0x7f };
}

/** `127:0` (scontrol's ExitCode=) → exit code and signal. */
function parseExitPair(value: string | null): { exitCode: number | null; signal: number | null } {
  const m = /^(\d+):(\d+)$/.exec(value ?? '');
  return m ? { exitCode: Number(m[1]), signal: Number(m[2]) } : { exitCode: null, signal: null };
}

const ENDED: ReadonlySet<string> = new Set(SLURM_FINAL_STATES);

export function isEndedState(state: string): boolean {
  return ENDED.has(state);
}

/** Time left: running until the limit (from the projected end), pending the whole limit, ended none. */
function timeLeft(state: string, limit: number | null, end: number | null, nowMs: number): number | null {
  if (isEndedState(state)) return null;
  if (state === 'PENDING') return limit;
  if (end && end > 0) return Math.max(0, Math.round(end - nowMs / 1000));
  return null;
}

function jobFromJson(j: Json, nowMs: number): SlurmJob {
  const id = String(num(j.job_id) ?? '');
  const name = typeof j.name === 'string' ? j.name : '';
  const user = text(j.user_name);
  // 22.05: "RUNNING"; 23.02+: ["RUNNING"] (plus flags such as "COMPLETING").
  const states = Array.isArray(j.job_state) ? (j.job_state as unknown[]).map(String) : [String(j.job_state ?? 'UNKNOWN')];
  const state = states[0] ?? 'UNKNOWN';
  const limitMinutes = num(j.time_limit);
  const limit = limitMinutes === null ? null : limitMinutes * 60;
  const end = num(j.end_time);
  let exitCode: number | null = null;
  let signal: number | null = null;
  if (isEndedState(state)) {
    if (typeof j.exit_code === 'number') ({ exitCode, signal } = decodeWaitStatus(j.exit_code));
    else if (j.exit_code && typeof j.exit_code === 'object') {
      const e = j.exit_code as Json;
      exitCode = num(e.return_code);
      signal = num((e.signal as Json | undefined)?.id ?? (e.signal as Json | undefined)?.signal_id) ?? 0;
    }
  }
  return {
    id,
    name,
    comment: text(j.comment),
    user,
    partition: text(j.partition),
    state,
    reason: text(j.state_reason),
    node: text(j.nodes),
    exitCode,
    signal,
    timeLimitSeconds: limit,
    timeLeftSeconds: timeLeft(state, limit, end, nowMs),
    submitTime: isoOf(num(j.submit_time)),
    startTime: isoOf(num(j.start_time)),
    endTime: isoOf(end),
    outputPath: expandOutputPattern(text(j.standard_output), { id, name, user }),
    gres: text(j.tres_per_node) ?? text(j.tres_per_job) ?? text(j.tres_per_task),
    priority: num(j.priority),
    pendingPosition: null,
  };
}

/** Every job of `squeue --json` (all users, finished and rejected ones too: 22.05 ignores -j, --name and -u there). */
export function parseSqueueJson(stdout: string, nowMs: number): SlurmJob[] {
  let data: unknown;
  try {
    data = JSON.parse(stdout);
  } catch (error) {
    throw new AppError('INTERNAL', `squeue --json printed something that is not JSON (${stdout.slice(0, 80).trim() || 'nothing'}).`, { cause: error });
  }
  const jobs = (data as Json | null)?.jobs;
  if (!Array.isArray(jobs)) throw new AppError('INTERNAL', 'squeue --json printed no "jobs" list.');
  return jobs.filter((j): j is Json => !!j && typeof j === 'object').map((j) => jobFromJson(j, nowMs));
}

/** `squeue -h -t all -o SQUEUE_FORMAT` lines (SLURM_TIME_FORMAT=%s). Exit codes are not in squeue's format: null. */
export function parseSqueueLines(stdout: string): SlurmJob[] {
  const jobs: SlurmJob[] = [];
  for (const line of stdout.split('\n')) {
    if (!line.trim()) continue;
    const parts = line.split('|');
    if (parts.length < SQUEUE_FIELDS) continue;
    const [id, name, user, partition, state, reason, node, limitText, leftText, submit, start, end, priority, gres] = parts;
    const comment = parts.slice(SQUEUE_FIELDS - 1).join('|');
    const limit = parseSlurmDuration(limitText ?? '');
    const left = parseSlurmDuration(leftText ?? '');
    const st = (state ?? '').trim();
    jobs.push({
      id: (id ?? '').trim(),
      name: name ?? '',
      comment: text(comment),
      user: text(user),
      partition: text(partition),
      state: st,
      reason: text(reason),
      node: text(node),
      exitCode: null,
      signal: null,
      timeLimitSeconds: limit,
      timeLeftSeconds: isEndedState(st) ? null : left,
      submitTime: isoOf(Number(submit) || null),
      startTime: isoOf(Number(start) || null),
      endTime: isoOf(Number(end) || null),
      outputPath: null,
      gres: text(gres),
      priority: Number.isFinite(Number(priority)) && text(priority) !== null ? Number(priority) : null,
      pendingPosition: null,
    });
  }
  return jobs;
}

/**
 * One `scontrol -o` record: `Key=value` pairs separated by spaces, where values may hold spaces
 * (Comment=, Command=, paths). A new pair starts at a space followed by a CamelCase key and `=`;
 * the words of our comment (`profile=`, `app=`) are lowercase on purpose, so they stay in Comment.
 */
export function parseScontrolRecord(line: string): Record<string, string> {
  const record: Record<string, string> = {};
  for (const pair of line.trim().split(/ (?=[A-Z][A-Za-z0-9:/_]*=)/)) {
    const eq = pair.indexOf('=');
    if (eq > 0) record[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return record;
}

/** `scontrol -o show job <id>` (SLURM_TIME_FORMAT=%s): the job, with its exit code, even after it left squeue's default view. */
export function parseScontrolJob(stdout: string, nowMs: number): SlurmJob | null {
  const line = stdout.split('\n').find((l) => l.startsWith('JobId='));
  if (!line) return null;
  const r = parseScontrolRecord(line);
  const state = r.JobState ?? 'UNKNOWN';
  const limit = parseSlurmDuration(r.TimeLimit ?? '');
  const end = Number(r.EndTime) || null;
  const { exitCode, signal } = isEndedState(state) ? parseExitPair(r.ExitCode ?? null) : { exitCode: null, signal: null };
  return {
    id: r.JobId ?? '',
    name: r.JobName ?? '',
    comment: text(r.Comment),
    user: text((r.UserId ?? '').replace(/\(\d+\)$/, '')),
    partition: text(r.Partition),
    state,
    reason: text(r.Reason),
    node: text(r.NodeList),
    exitCode,
    signal,
    timeLimitSeconds: limit,
    timeLeftSeconds: timeLeft(state, limit, end, nowMs),
    submitTime: isoOf(Number(r.SubmitTime) || null),
    startTime: isoOf(Number(r.StartTime) || null),
    endTime: isoOf(end),
    outputPath: text(r.StdOut),
    gres: text(r.TresPerNode) ?? text(r.TresPerJob) ?? text(r.TresPerTask),
    priority: Number.isFinite(Number(r.Priority)) && r.Priority ? Number(r.Priority) : null,
    pendingPosition: null,
  };
}

/** `scontrol -o show node <name>`: the address the login node reaches it at (NodeAddr, else the name). */
export function parseNodeAddr(stdout: string): string | null {
  const line = stdout.split('\n').find((l) => l.startsWith('NodeName='));
  if (!line) return null;
  const r = parseScontrolRecord(line);
  return text(r.NodeAddr) ?? text(r.NodeName);
}

/** `scontrol show config` → KillWait in seconds (null when absent). */
export function parseKillWait(stdout: string): number | null {
  const m = /^KillWait\s*=\s*(\d+)/m.exec(stdout);
  return m ? Number(m[1]) : null;
}

/** Names of the rollout workers' job arrays (workers/slurm-array-script.ts): `agentswarm-workers-<pool id>`. */
export const WORKER_ARRAY_PREFIX = `${SLURM_JOB_PREFIX}workers-`;

/**
 * Tasks of a rollout worker array the app submitted (name agentswarm-workers-<pool>, our comment naming that pool), of
 * `user` when known. Not server jobs: the engine never lists them; the worker pool reads them from the same queue answer.
 */
export function isWorkerArrayJob(job: SlurmJob, user: string | null): boolean {
  if (!job.name.startsWith(WORKER_ARRAY_PREFIX)) return false;
  const pool = /^"?agentswarm workers pool=([a-z0-9][a-z0-9-]{0,63})"?$/.exec((job.comment ?? '').trim());
  if (!pool || job.name !== `${WORKER_ARRAY_PREFIX}${pool[1]}`) return false;
  return user === null || job.user === null || job.user === user;
}

/** Jobs of the app (name agentswarm-<profile>, our comment naming that profile), of `user` when known. */
export function isAppJob(job: SlurmJob, user: string | null): boolean {
  if (!job.name.startsWith(SLURM_JOB_PREFIX)) return false;
  const identity = parseJobComment(job.comment);
  if (!identity || job.name !== `${SLURM_JOB_PREFIX}${identity.profileId}`) return false;
  return user === null || job.user === null || job.user === user;
}

function sharesPartition(a: string | null, b: string | null): boolean {
  if (!a || !b) return a === b;
  const names = new Set(a.split(','));
  return b.split(',').some((p) => names.has(p));
}

/**
 * Sets `pendingPosition` on each pending job of `ours`: 1 + the pending jobs of ALL users in a shared
 * partition that Slurm would consider first (higher priority; at equal priority, submitted earlier, then
 * lower id). An estimate: backfill may start a small job sooner.
 */
export function withPendingPositions(ours: SlurmJob[], all: SlurmJob[]): SlurmJob[] {
  const pending = all.filter((j) => j.state === 'PENDING');
  const ahead = (a: SlurmJob, b: SlurmJob): boolean => {
    const pa = a.priority ?? 0;
    const pb = b.priority ?? 0;
    if (pa !== pb) return pa > pb;
    const sa = a.submitTime ?? '';
    const sb = b.submitTime ?? '';
    if (sa !== sb) return sa < sb;
    return Number(a.id) < Number(b.id);
  };
  return ours.map((job) => {
    if (job.state !== 'PENDING') return job;
    const before = pending.filter((o) => o.id !== job.id && sharesPartition(o.partition, job.partition) && ahead(o, job)).length;
    return { ...job, pendingPosition: before + 1 };
  });
}
