import { AppError } from '../../../shared/errors';
import type { EngineHost } from '../container-engine';
import { slurmStateDirWord } from './job-script';
import { mapSlurmError } from './slurm-errors';
import { RECORD_MARK, parseRecords, type SlurmJobRecord } from './slurm-state';

/*
 * The job folders on the login node (`~/.agentswarm/slurm/agentswarm-<key>`): the labels record the engine
 * writes next to each job script, read back for every listing, and the folder removed with its job.
 */

const RECORDS_SCRIPT = [
  'for f in "$HOME"/.agentswarm/slurm/agentswarm-*/labels.json; do',
  '  [ -f "$f" ] || continue',
  `  echo '${RECORD_MARK}'; cat "$f"; echo`,
  'done',
  'exit 0',
].join('\n');

/** Every job folder's record, by job id, in one exec. */
export async function readRecords(host: EngineHost): Promise<Map<string, SlurmJobRecord>> {
  const result = await host.exec(RECORDS_SCRIPT);
  if (result.code !== 0) throw mapSlurmError('cat', result, host.label);
  return parseRecords(result.stdout);
}

/** Writes the record of a job just submitted. Atomic: a list running at the same time reads the old file or the new one, never half of one. */
export async function writeRecord(host: EngineHost, record: SlurmJobRecord): Promise<void> {
  const write = `d=${slurmStateDirWord(record.key)}\numask 077\ncat >"$d/labels.json.tmp" && mv -f "$d/labels.json.tmp" "$d/labels.json"`;
  const result = await host.exec(write, { stdin: JSON.stringify(record) });
  if (result.code !== 0) throw new AppError('INTERNAL', `Could not write the job's labels on ${host.label}: ${result.stderr.trim() || `exit ${result.code}`}.`);
}

/** The job's folder when it is the folder's job, else only its output (a newer job of the same key owns the folder). */
export async function removeJobFiles(host: EngineHost, jobId: string, key: string): Promise<void> {
  const script = `d=${slurmStateDirWord(key)}\nif [ -f "$d/labels.json" ] && ! grep -q '"jobId":"${jobId}"' "$d/labels.json"; then rm -f "$d/out/${jobId}.out"; else rm -rf "$d"; fi`;
  const result = await host.exec(script);
  if (result.code !== 0) throw new AppError('INTERNAL', `Could not remove the files of Slurm job ${jobId} on ${host.label}: ${result.stderr.trim() || `exit ${result.code}`}.`);
}

/** Cancels a job and removes its folder (a half-made submission, or a start that failed): best effort, never throws. */
export async function discardJob(host: EngineHost, jobId: string, key: string): Promise<void> {
  await host.exec(`scancel ${jobId}`).catch(() => undefined);
  await removeJobFiles(host, jobId, key).catch(() => undefined);
}
