import { z } from 'zod';
import { EngineId, ImageRef } from './schemas';
import { EnvName, HostPath, ProfileId } from './schemas-profile-fields';

/**
 * Slurm jobs (issue 18): how a swarm server runs as a batch job on a cluster behind a login node.
 * Measured behaviour of Slurm 22.05: /work/shared/reference/podman-slurm-facts.md (Slurm part).
 *
 * Every value here ends up in a `#SBATCH` line or a shell word of the job script, so the names a site
 * chooses (partition, account, QoS, GPU type) are held to the characters Slurm itself uses: no spaces,
 * quotes or `$`, and never a leading `-` (which sbatch would read as another option).
 */

/** A Slurm object name (account, QoS, GRES type): letters, digits, `_ . + -`, not starting with `-` or `.`. */
const SLURM_WORD = /^[A-Za-z0-9_][A-Za-z0-9_.+-]{0,63}$/;

function slurmName(what: string, example: string) {
  return z
    .string()
    .trim()
    .min(1, `${what} is empty: leave it out to use the cluster's default, or type one such as ${example}`)
    .max(64, `${what} is longer than 64 characters: check it with \`sinfo\` / \`sacctmgr show assoc\` on the login node`)
    .regex(
      SLURM_WORD,
      `${what} may only hold letters, digits, "_", ".", "+" and "-", and must not start with "-" or ".": copy it as \`sinfo\` or \`sacctmgr show assoc\` prints it, e.g. ${example}`,
    );
}

/** `--partition`: one name, or several separated by commas (Slurm starts the job in the first that can run it). */
export const SlurmPartition = z
  .string()
  .trim()
  .min(1, 'partition is empty: leave it out to use the default partition, or type one that `sinfo` lists, e.g. gpu')
  .max(256)
  .refine(
    (v) => v.split(',').every((p) => SLURM_WORD.test(p)),
    'partition may only hold letters, digits, "_", ".", "+", "-" (and "," between several), and no part may start with "-": type it as `sinfo` lists it, e.g. gpu or gpu,gpu-long',
  );
export const SlurmAccount = slurmName('account', 'proj123');
export const SlurmQos = slurmName('QoS', 'normal');
export const SlurmGresType = slurmName('GPU type', 'a100');

/**
 * A time limit in one of Slurm's forms, seconds; null when the text is not one. Accepted: `minutes`,
 * `hours:minutes:seconds`, `days-hours`, `days-hours:minutes`, `days-hours:minutes:seconds`. Slurm also
 * takes `minutes:seconds`, which users misread as hours:minutes ("1:30" is 90 seconds there): refused,
 * the message asks for `1:30:00`.
 */
export function slurmTimeLimitSeconds(text: string): number | null {
  const t = text.trim();
  let m = /^(\d{1,6})$/.exec(t);
  if (m) return Number(m[1]) * 60;
  m = /^(\d{1,5}):([0-5]?\d):([0-5]?\d)$/.exec(t);
  if (m) return Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3]);
  m = /^(\d{1,4})-([01]?\d|2[0-3])(?::([0-5]?\d)(?::([0-5]?\d))?)?$/.exec(t);
  if (m) return Number(m[1]) * 86400 + Number(m[2]) * 3600 + Number(m[3] ?? 0) * 60 + Number(m[4] ?? 0);
  return null;
}

export const SlurmTimeLimit = z
  .string()
  .trim()
  .superRefine((v, ctx) => {
    if (/^\d{1,5}:[0-5]?\d$/.test(v)) {
      ctx.addIssue({
        code: 'custom',
        message: `time limit "${v}" would mean minutes:seconds to Slurm: write hours as ${v}:00 (hours:minutes:seconds), or the minutes alone`,
      });
      return;
    }
    const seconds = slurmTimeLimitSeconds(v);
    if (seconds === null) {
      ctx.addIssue({
        code: 'custom',
        message: 'time limit must be minutes (e.g. 120), hours:minutes:seconds (e.g. 2:00:00) or days-hours:minutes:seconds (e.g. 1-12:00:00)',
      });
    } else if (seconds < 60) {
      ctx.addIssue({ code: 'custom', message: 'time limit must be at least 1 minute (Slurm counts in minutes): e.g. 120 or 2:00:00' });
    }
  });

/** `--gres=gpu[:type]:N` (the classic form every Slurm knows) or `--gpus=[type:]N` (Slurm 19.05+, cons_tres). */
export const SlurmGpus = z.object({
  flag: z.enum(['gres', 'gpus']),
  count: z
    .number()
    .int('GPU count must be a whole number')
    .min(1, 'GPU count must be at least 1: to run without GPUs, turn GPUs off')
    .max(64, 'GPU count is at most 64 per job here'),
  /** A GPU model as the site's gres.conf names it (`sinfo -o %G` shows `gpu:a100:4`); null: any. */
  type: SlurmGresType.nullable().default(null),
});

/** Seconds of warning before the time limit that Slurm sends as `--signal=B:USR1@<s>` (its maximum is 65535). */
export const SLURM_DEFAULT_WARN_SECONDS = 300;

/**
 * How the swarm server runs inside the job.
 * - `native`: `ajet-swarm start` on the node after the profile's activate line (a venv's
 *   `source …/bin/activate`, `conda activate …`, `module load …`; run with `eval`, so it may chain
 *   several commands with `&&` or `;`). null: `ajet-swarm` is on the node's PATH already.
 * - `podman`: the swarm image in Podman inside the job, with the stop pattern from the facts
 *   (`podman run -d`, a TERM trap that stops and removes the container, `podman wait`), so that
 *   `scancel` also ends the container (conmon escapes the job otherwise and the server keeps serving).
 * Slurm's own `--container` (an OCI bundle through oci.conf), Apptainer/Singularity and enroot/pyxis are
 * NOT built: a site with those edits the job template itself; those variants are not tested here.
 */
export const SlurmRun = z.discriminatedUnion('mode', [
  z.object({
    mode: z.literal('native'),
    activate: z
      .string()
      .trim()
      .max(512, 'activate line is longer than 512 characters: put the commands in a script on the cluster and `source` it')
      .refine((v) => !/[\0\r\n]/.test(v), 'activate line must be one line: join commands with && or ;, or `source` a script')
      .nullable()
      .default(null),
  }),
  z.object({ mode: z.literal('podman'), image: ImageRef }),
  /**
   * The user's own lines that start the server (Apptainer/Singularity, enroot/pyxis, a site's wrapper),
   * run in the job in place of the native or Podman part; `$PORT` is the port the job chose. NOT tested
   * here: no Apptainer or enroot on our machines. The presets below are starting points.
   */
  z.object({
    mode: z.literal('custom'),
    script: z
      .string()
      .max(4000, 'the custom lines are longer than 4000 characters: put them in a script on the cluster and call it here')
      .refine((v) => v.trim() !== '', 'the custom lines are empty: write the command that starts the server, or pick native or Podman')
      .refine((v) => !v.includes('\0'), 'the custom lines contain a NUL character')
      .refine((v) => /\$\{?PORT\b/.test(v), 'the custom lines must pass "$PORT" to the server (ajet-swarm start --swarm-port "$PORT"): the app reads that port'),
  }),
]);

/** Starting points for the custom lines: what Apptainer and enroot sites run (not tested here). */
export const SLURM_CUSTOM_PRESETS = {
  apptainer: 'apptainer exec --nv docker://ghcr.io/modelscope/agentjet:main \\\n  ajet-swarm start --swarm-port "$PORT"',
  enroot: 'srun --container-image=ghcr.io#modelscope/agentjet:main --container-mounts="$HOME:$HOME" \\\n  ajet-swarm start --swarm-port "$PORT"',
} as const;

export const SlurmJobOptions = z
  .object({
    /** null: the cluster's default partition (sbatch without --partition). */
    partition: SlurmPartition.nullable().default(null),
    account: SlurmAccount.nullable().default(null),
    qos: SlurmQos.nullable().default(null),
    /** null: the partition's default time limit (which may be short: set one). */
    timeLimit: SlurmTimeLimit.nullable().default(null),
    /** null: no GPUs asked for (the job would not be able to train). */
    gpus: SlurmGpus.nullable().default(null),
    cpusPerTask: z.number().int('CPUs must be a whole number').min(1, 'CPUs must be at least 1').max(1024, 'CPUs is at most 1024').nullable().default(null),
    /** Whole GB per node (`--mem=<n>G`); null: the partition's default. */
    memoryGb: z.number().int('memory must be whole GB').min(1, 'memory must be at least 1 GB').max(65_536, 'memory is at most 65536 GB').nullable().default(null),
    warnBeforeLimitSeconds: z
      .number()
      .int('warning time must be whole seconds')
      .min(10, 'warn at least 10 seconds before the limit (Slurm checks limits about every 30 s, so the signal may come that much early)')
      .max(65_535, 'Slurm sends the warning at most 65535 seconds (about 18 hours) before the limit')
      .default(SLURM_DEFAULT_WARN_SECONDS),
    /** The server's working directory on the node (`ajet-swarm` reads `.env` there, writes saved_experiments/); null: the job's state folder. */
    workDir: HostPath.nullable().default(null),
    run: SlurmRun,
  })
  .superRefine((o, ctx) => {
    const limit = o.timeLimit === null ? null : slurmTimeLimitSeconds(o.timeLimit);
    // A limit under a minute has its own message already.
    if (limit !== null && limit >= 60 && o.warnBeforeLimitSeconds >= limit) {
      ctx.addIssue({
        code: 'custom',
        path: ['warnBeforeLimitSeconds'],
        message: `the warning (${o.warnBeforeLimitSeconds} s before the limit) must come after the start: make it shorter than the time limit (${limit} s)`,
      });
    }
  });

/** What identifies one submission: the profile (job name, state folder) and the app version (job comment). */
export const SlurmJobIdentity = z.object({
  profileId: ProfileId,
  appVersion: z.string().regex(/^[0-9A-Za-z][0-9A-Za-z.+-]{0,63}$/, 'app version must look like 1.2.3'),
  /** Names of the env variables the server gets; their values go to a 0600 file through stdin, never into the script. */
  envNames: z.array(EnvName).max(80).default([]),
});

export type SlurmPartition = z.infer<typeof SlurmPartition>;
export type SlurmGpus = z.infer<typeof SlurmGpus>;
export type SlurmRun = z.infer<typeof SlurmRun>;
export type SlurmJobOptions = z.infer<typeof SlurmJobOptions>;
export type SlurmJobOptionsInput = z.input<typeof SlurmJobOptions>;
export type SlurmJobIdentity = z.infer<typeof SlurmJobIdentity>;

/** Slurm's job states (squeue `%T`, `job_state`), the ones the app tells apart; others arrive as they are. */
export const SLURM_ACTIVE_STATES = ['PENDING', 'CONFIGURING', 'RUNNING', 'COMPLETING', 'SUSPENDED', 'RESIZING', 'REQUEUED', 'REQUEUE_HOLD', 'REQUEUE_FED', 'SIGNALING', 'STAGE_OUT', 'STOPPED', 'RESV_DEL_HOLD'] as const;
export const SLURM_FINAL_STATES = ['COMPLETED', 'FAILED', 'CANCELLED', 'TIMEOUT', 'NODE_FAIL', 'OUT_OF_MEMORY', 'PREEMPTED', 'BOOT_FAIL', 'DEADLINE', 'SPECIAL_EXIT', 'REVOKED'] as const;

/**
 * One job as the app sees it, from `squeue --json`, the plain `squeue -o` fallback or `scontrol -o show job`
 * (all three parse into this). Times are ISO strings (the cluster's clock); durations whole seconds.
 */
export const SlurmJob = z.object({
  id: z.string(),
  name: z.string(),
  comment: z.string().nullable(),
  user: z.string().nullable(),
  partition: z.string().nullable(),
  /** PENDING, RUNNING, COMPLETING, COMPLETED, FAILED, CANCELLED, TIMEOUT, … as Slurm says it. */
  state: z.string(),
  /** Why it waits or ended (Resources, Priority, QOSMaxGRESPerUser, NonZeroExitCode, …); null for Slurm's "None". */
  reason: z.string().nullable(),
  /** The node list (one node for our jobs); null until it runs. */
  node: z.string().nullable(),
  /** Known once the job ended: the batch script's exit code, and the signal that killed it (0: none). */
  exitCode: z.number().int().nullable(),
  signal: z.number().int().nullable(),
  /** null: no limit (UNLIMITED) or not reported. */
  timeLimitSeconds: z.number().int().nullable(),
  /** Running: until the limit; pending: the whole limit; ended: null. */
  timeLeftSeconds: z.number().int().nullable(),
  submitTime: z.string().nullable(),
  startTime: z.string().nullable(),
  /** Ended: when; running: when the limit is reached (Slurm's projection); pending: Slurm's estimate or null. */
  endTime: z.string().nullable(),
  /** The output file, expanded (%j → id); null when Slurm did not say. */
  outputPath: z.string().nullable(),
  /** The GPUs asked for as Slurm prints them (gres:gpu:1, gres:gpu:fake:2); null: none. */
  gres: z.string().nullable(),
  priority: z.number().nullable(),
  /** Pending only: 1 + the pending jobs in the same partition Slurm would consider first; null otherwise. */
  pendingPosition: z.number().int().nullable(),
});
export type SlurmJob = z.infer<typeof SlurmJob>;

/** The time-limit warning a job got (Slurm sent USR1 `warnBeforeLimitSeconds` before its limit). */
export const SlurmLimitWarning = z.object({
  /** When the job's script received it (ISO, the node's clock). */
  at: z.string(),
  /** How many seconds before the limit it was sent. */
  seconds: z.number().int(),
});

/**
 * One of the app's jobs on a Slurm login node, as the Slurm server card shows it (`slurm:jobs`): the
 * queue state with its reason and position, the node, time left, the GPUs asked for, the time-limit
 * warning once it came, and for a job that ended badly the last lines of its output.
 */
export const SlurmJobView = SlurmJob.extend({
  engineId: z.string(),
  /** The swarm profile it was submitted for (its label); null for a quick start without a profile. */
  profileId: z.string().nullable(),
  /** The swarm port the app forwards to it (its io.agentswarm.port label). */
  port: z.number().int().nullable(),
  limitWarning: SlurmLimitWarning.nullable(),
  /** Ended but not COMPLETED/CANCELLED (FAILED, TIMEOUT, OUT_OF_MEMORY, NODE_FAIL, …): the output's last lines; else []. */
  outputTail: z.array(z.string()),
  /** When this was read (ISO, this computer's clock): the UI counts time left down from here. */
  readAt: z.string(),
});
export type SlurmLimitWarning = z.infer<typeof SlurmLimitWarning>;
export type SlurmJobView = z.infer<typeof SlurmJobView>;

/** A Slurm job id as squeue prints it: digits, or `123_4` for an array task. */
export const SlurmJobId = z.string().regex(/^\d+(_\d+)?$/, 'a Slurm job id is digits (123, or 123_4 for an array task)');

/**
 * `slurm:clear`: the app forgets ended jobs (removes each job's folder under ~/.agentswarm/slurm/ on the login node:
 * script, labels and output). `jobIds` absent: every ended job. A job still queued or running is never cleared.
 */
export const SlurmClearRequest = z.object({
  engineId: EngineId,
  jobIds: z.array(SlurmJobId).min(1).max(1000).optional(),
});
export const SlurmClearResult = z.object({
  /** The jobs whose records were removed. */
  cleared: z.array(SlurmJobId),
});
export type SlurmClearRequest = z.infer<typeof SlurmClearRequest>;
export type SlurmClearResult = z.infer<typeof SlurmClearResult>;
