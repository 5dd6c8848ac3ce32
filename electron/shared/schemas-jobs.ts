import { z } from 'zod';
import { ContainerId, EngineId } from './schemas';
import { ProfileId } from './schemas-profiles';
import { SecretId } from './schemas-vault';

/**
 * Job runner (issue 16): the user's Python scripts run as child processes of the backend (execa),
 * with an explicit cwd and env (AJET_SWARM_URL, REMOTE_MODEL_PATH, the LLM endpoint from the vault as
 * env, never argv), streamed line by line, kept in a per-run log file and a run history that survives
 * restarts.
 *
 * THE RESULT LINE: a script tells the app its result by printing one line
 *   AGENTSWARM_RESULT {"reward": 0.75, ...any JSON object...}
 * on stdout (the last such line wins). The templates in `resources/templates/` print it; for a file
 * the user adopted that does not, the runner also accepts a last stdout line that is a JSON object
 * with a numeric "reward". `JobResult.raw` is that object.
 */
export const RESULT_LINE_PREFIX = 'AGENTSWARM_RESULT ';

export const JobId = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[a-z0-9][a-z0-9-]*$/, 'job id must be lowercase letters, digits or "-"');

/**
 * What a run is for. `dataset-test`: the collector through `resources/python/probe_dataset.py`
 * (count + first items). `episode-test`: `run_episode_once.py <item>` with the debug LLM, no swarm.
 * `debug-episode`: `agent_roll_one_episode_debug.py` against a swarm. `train`: `agent_roll.py`
 * (one per server at a time). `script`: anything else the user runs from the Jobs page.
 */
export const JobKind = z.enum(['dataset-test', 'episode-test', 'debug-episode', 'train', 'script']);

/** An absolute path on this computer (where the backend runs). */
export const LocalPath = z
  .string()
  .trim()
  .min(1, 'path is required')
  .max(4096)
  .refine((p) => p.startsWith('/') || /^[A-Za-z]:[\\/]/.test(p), 'path must be absolute');

export const PythonSource = z.enum(['venv', 'conda', 'path', 'custom']);

export const PythonInterpreter = z.object({
  /** Absolute path of the executable (…/.venv/bin/python, /usr/bin/python3). */
  path: z.string(),
  source: PythonSource,
  /** "Python 3.11.2"; null when `--version` failed (then `problem` says why). */
  version: z.string().nullable(),
  /** Whether `import ajet` works in it, and the version AgentJet reports (null when unknown). */
  ajet: z.object({ installed: z.boolean(), version: z.string().nullable() }),
  problem: z.string().nullable(),
});

export const PythonDiscoverRequest = z.object({
  /** The agent project: its .venv/venv come first. */
  projectDir: LocalPath.nullable().default(null),
  /** A path the user typed or picked, checked as well (source `custom`). */
  extra: LocalPath.nullable().default(null),
});

export const PythonDiscovery = z.object({
  interpreters: z.array(PythonInterpreter),
  /** The first with ajet installed, else the first that runs; null when none runs. */
  recommended: z.string().nullable(),
  /** How to install AgentJet's client into an interpreter (shown when ajet is missing). */
  installHint: z.string(),
});

/** Which swarm server a job talks to: AJET_SWARM_URL is that server's local URL (the tunnel's for SSH). */
export const JobSwarmTarget = z.object({
  engineId: EngineId,
  containerId: ContainerId,
  /** The server profile (null for the dry run): one training run per profile at a time. */
  profileId: ProfileId.nullable().default(null),
});

export const JobStartRequest = z.object({
  kind: JobKind,
  /** The working directory (the agent project, or its tutorial/opencode_build_<id>/ folder). */
  cwd: LocalPath,
  /** The script, absolute or relative to `cwd`. */
  script: z.string().trim().min(1).max(4096),
  /** Plain arguments (an item id). Never a secret: secrets go as env from `llmSecretId`. */
  args: z.array(z.string().max(4096)).max(64).default([]),
  /** The interpreter's absolute path (from `jobs:python`). */
  python: LocalPath,
  /** The LLM endpoint in the vault: OPENAI_API_KEY/API_KEY/OPENAI_BASE_URL/BASE_URL (+ OPENAI_MODEL, AJET_DEBUG_MODEL). */
  llmSecretId: SecretId.nullable().default(null),
  swarm: JobSwarmTarget.nullable().default(null),
  /** REMOTE_MODEL_PATH: the model path inside the server's container. */
  remoteModelPath: z.string().max(1024).nullable().default(null),
  /**
   * The user confirmed that this run may call `stop_engine` / `force_restart=True` (ends training for
   * every client of that server). Without it a `train` run of a script that does is refused
   * (JOB_NEEDS_CONFIRMATION).
   */
  confirmEngineRestart: z.boolean().default(false),
  /** Shown in the history ("Test episode · item 3"). */
  label: z.string().max(200).nullable().default(null),
});

export const JobState = z.enum(['starting', 'running', 'cancelling', 'succeeded', 'failed', 'cancelled']);

/** Why a run failed, in words a user can act on. `code` is one of the JOB_* / SWARM_* / PORT_IN_USE error codes. */
export const JobFailure = z.object({
  code: z.string(),
  /** English, for the log and old records; the renderer words `params` in the user's language. */
  message: z.string(),
  /**
   * The facts of the failure as data: `reason` names the case (crashed-traceback, crashed-output,
   * crashed-silent, swarm-down, port-taken, ajet-missing, result-broken, result-missing) and the
   * other keys fill its sentence (exitCode or signal, exception, file, line, lastLine, port, url,
   * python, resultLine). Absent in records written before it existed.
   */
  params: z.record(z.string(), z.union([z.string(), z.number()])).optional(),
  /** The innermost frame of the user's code in a Python traceback, and the exception line. */
  traceback: z
    .object({ file: z.string(), line: z.number().int(), exception: z.string(), text: z.string() })
    .nullable()
    .default(null),
});

export const JobResult = z.object({
  reward: z.number().nullable(),
  /** dataset-test: how many items, and the first few (as JSON). */
  count: z.number().int().nullable().default(null),
  items: z.array(z.unknown()).default([]),
  raw: z.record(z.string(), z.unknown()),
});

export const JobView = z.object({
  id: JobId,
  kind: JobKind,
  label: z.string().nullable(),
  state: JobState,
  cwd: z.string(),
  script: z.string(),
  args: z.array(z.string()),
  python: z.string(),
  swarm: JobSwarmTarget.nullable(),
  /** AJET_SWARM_URL as given to the process (null without a swarm). */
  swarmUrl: z.string().nullable(),
  llmSecretId: SecretId.nullable(),
  startedAt: z.string(),
  endedAt: z.string().nullable(),
  durationMs: z.number().int().nullable(),
  exitCode: z.number().int().nullable(),
  signal: z.string().nullable(),
  pid: z.number().int().nullable(),
  result: JobResult.nullable(),
  failure: JobFailure.nullable(),
  /** Lines written so far (stdout + stderr); the full log is in `logFile`. */
  logLines: z.number().int().nonnegative(),
  logFile: z.string(),
  /**
   * The run's record is not in the history file yet because writing it failed (`code`: ENOSPC,
   * EROFS, EACCES …; `file`: the history file). It is kept in memory and written again every 30 s
   * and at the next change; null once it is on disk.
   */
  notSaved: z.object({ code: z.string(), file: z.string() }).nullable().default(null),
});

export const JobRef = z.object({ jobId: JobId });

export const JobLogRequest = z.object({
  jobId: JobId,
  /** First line number wanted (0-based); lines before the memory buffer are read from the log file. */
  from: z.number().int().nonnegative().default(0),
  limit: z.number().int().min(1).max(5000).default(500),
});

export const JobLogLine = z.object({ n: z.number().int(), stream: z.enum(['out', 'err', 'app']), text: z.string() });

export const JobLogWindow = z.object({
  jobId: JobId,
  lines: z.array(JobLogLine),
  /** Total lines so far; ask again `from: total` for more. */
  total: z.number().int().nonnegative(),
});

/** Batched invalidation: new lines for a job (at most a few per second per job). */
export const JobLogAppended = z.object({ jobId: JobId, total: z.number().int().nonnegative() });

export type JobKindName = z.infer<typeof JobKind>;
export type JobStartInput = z.input<typeof JobStartRequest>;
export type JobStart = z.infer<typeof JobStartRequest>;
export type JobViewData = z.infer<typeof JobView>;
export type JobResultData = z.infer<typeof JobResult>;
export type PythonInterpreterData = z.infer<typeof PythonInterpreter>;
export type PythonDiscoveryData = z.infer<typeof PythonDiscovery>;
