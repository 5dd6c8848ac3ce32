import type { JobsApi } from '../jobs/jobs-api';
import type { WorkerBackend, WorkerHandle, WorkerPoll, WorkerStartSpec } from './worker-backend';

export interface LocalWorkersOptions {
  jobs: JobsApi;
  /** The job runner's log by line number (`jobs:log`). */
  readLog: (jobId: string, from: number, limit: number) => Promise<{ lines: { text: string }[]; total: number }>;
}

/**
 * Workers on this computer: each one a job of the job runner (its preflight, env from the vault,
 * log file and process-group stop), started as kind `script` so N of them may run for one server
 * (a `train` job holds the server's one training slot). The share comes as plain env.
 */
export class LocalWorkers implements WorkerBackend {
  constructor(private readonly options: LocalWorkersOptions) {}

  where(): string {
    return 'this computer';
  }

  async start(spec: WorkerStartSpec): Promise<WorkerHandle> {
    const { request } = spec;
    const job = await this.options.jobs.start(
      {
        kind: 'script',
        cwd: request.cwd,
        script: request.script,
        args: [],
        python: request.python,
        llmSecretId: request.llmSecretId,
        swarm: request.swarm,
        remoteModelPath: request.remoteModelPath,
        confirmEngineRestart: false,
        label: spec.label,
      },
      { extraEnv: spec.shareEnv },
    );
    return { pid: job.pid, jobId: job.id, runDir: null, logOffset: 0, note: null, tunnelPort: null };
  }

  async poll(handle: WorkerHandle): Promise<WorkerPoll> {
    if (handle.jobId === null) return { lines: [], end: { exitCode: null, signal: null, startError: 'no job' } };
    let job;
    try {
      job = this.options.jobs.get(handle.jobId);
    } catch {
      // The job runner forgot it (an app restart marks running jobs failed, and old runs are pruned).
      return { lines: [], end: { exitCode: null, signal: null, startError: null } };
    }
    const lines: string[] = [];
    // Read what is there before looking at the end, so the last lines (the error) are not lost.
    for (;;) {
      const window = await this.options.readLog(handle.jobId, handle.logOffset, 1000).catch(() => null);
      if (!window || window.lines.length === 0) break;
      lines.push(...window.lines.map((l) => l.text));
      handle.logOffset += window.lines.length;
      if (handle.logOffset >= window.total) break;
    }
    const ended = job.state === 'succeeded' || job.state === 'failed' || job.state === 'cancelled';
    if (!ended) return { lines, end: null };
    const startError = job.exitCode === null && job.signal === null && job.failure ? job.failure.message : null;
    return { lines, end: { exitCode: job.exitCode, signal: job.signal, startError } };
  }

  async stop(handle: WorkerHandle): Promise<void> {
    if (handle.jobId === null) return;
    await this.options.jobs.cancel(handle.jobId).catch(() => undefined);
  }
}
