import type { JobStart, JobViewData, PythonDiscoveryData } from '../../shared/schemas-jobs';

/**
 * The job runner as other domains use it (the wizard starts its tests, debug episode and training
 * through this, never execa itself). Implemented by `JobRunner` in this folder.
 */
export interface JobsApi {
  discoverPython(request: { projectDir: string | null; extra: string | null }): Promise<PythonDiscoveryData>;
  /**
   * Starts a run; resolves once the process runs. Preflight failures throw AppErrors before a
   * process exists: PYTHON_NOT_FOUND, AJET_NOT_INSTALLED (only kinds that import ajet: debug-episode,
   * train), SWARM_UNREACHABLE (GET <AJET_SWARM_URL>/health failed), JOB_BUSY (a train run already
   * runs for that profile), JOB_NEEDS_CONFIRMATION, VAULT_LOCKED / SECRET_NOT_FOUND.
   * `extraEnv` adds plain (non-secret) env for this run, e.g. the debug model name.
   */
  start(request: JobStart, options?: { extraEnv?: Readonly<Record<string, string>> }): Promise<JobViewData>;
  /** SIGINT → SIGTERM → SIGKILL for the process tree; resolves with the final view. */
  cancel(jobId: string): Promise<JobViewData>;
  /** JOB_NOT_FOUND when unknown. */
  get(jobId: string): JobViewData;
  list(): JobViewData[];
  /** Resolves with the final view once the job ended (at once if it already has). */
  waitForEnd(jobId: string): Promise<JobViewData>;
  /** Every snapshot that `jobs:changed` carries, in order. Returns the unsubscribe function. */
  onChange(listener: (job: JobViewData) => void): () => void;
}
