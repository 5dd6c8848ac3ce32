import { SlurmJobOptions, slurmTimeLimitSeconds, type SlurmJobOptions as JobOptions } from '../../shared/schemas-slurm';
import type { Profile } from '../../shared/schemas-profiles';
import { sbatchOptions } from '../engines/slurm/job-script';
import { mapSlurmError } from '../engines/slurm/slurm-errors';
import { parseSlurmDuration } from '../engines/slurm/slurm-parse';
import { hostParam, pass, problem, say, skip, type Check, type CheckContext, type Finding } from './check-kit';

/**
 * The doctor for a Slurm login node (issue 18). A compute node is not chosen before the job runs, so
 * nothing of Docker's host checks applies; what can go wrong is the request itself. The best judge of
 * that is the scheduler: `sbatch --test-only` checks partition, account, QoS, GPUs, CPUs, memory and
 * time against the cluster without submitting, and says when and where the job would start.
 */

/** One line per partition and node state: name (`*`: default), avail, MaxTime, DefaultTime, gres, nodes, state. */
const SINFO = "sinfo -h -o '%P|%a|%l|%L|%G|%D|%T'";
const TIMEOUT_MS = 20_000;

export interface SinfoRow {
  partition: string;
  isDefault: boolean;
  up: boolean;
  /** Seconds; null: unlimited or not set. */
  maxTime: number | null;
  defaultTime: number | null;
  /** GPUs per node of this row's nodes, by type ('' for untyped). */
  gpus: { type: string; count: number }[];
  nodes: number;
  state: string;
}

/** `gpu:2`, `gpu:a100:4(S:0-1)`, `gpu:fake:2,shard:8`, `(null)`. */
export function parseGres(text: string): { type: string; count: number }[] {
  return text
    .split(/,(?![^(]*\))/)
    .map((part) => /^gpu(?::([^:(]+))?:(\d+)/.exec(part.trim()))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ type: m[1] ?? '', count: Number(m[2]) }));
}

function sinfoTime(text: string): number | null {
  return /^(infinite|unlimited|n\/a|none)$/i.test(text.trim()) ? null : parseSlurmDuration(text.trim());
}

export function parseSinfo(stdout: string): SinfoRow[] {
  return stdout
    .split('\n')
    .map((line) => line.trim().split('|'))
    .filter((f) => f.length >= 7 && f[0])
    .map(([partition = '', avail = '', max = '', def = '', gres = '', nodes = '0', state = '']) => ({
      partition: partition.replace(/\*$/, ''),
      isDefault: partition.endsWith('*'),
      up: avail === 'up',
      maxTime: sinfoTime(max),
      defaultTime: sinfoTime(def),
      gpus: parseGres(gres),
      nodes: Number(nodes) || 0,
      state,
    }));
}

/** The job options Start would submit: the profile's own, else what the Slurm engine derives (see jobOptionsOf). */
export function jobOptionsOfProfile(profile: Profile): JobOptions {
  if (profile.slurm) return profile.slurm;
  const gpus = profile.mode === 'native' || profile.gpus.mode === 'none' ? null : { flag: 'gres' as const, count: profile.gpus.mode === 'ids' ? profile.gpus.ids.length : 1 };
  const run = profile.mode === 'native' ? { mode: 'native' as const, activate: profile.nativeActivate } : { mode: 'podman' as const, image: profile.image };
  return SlurmJobOptions.parse({ run, gpus });
}

const sinfoRuns = new WeakMap<CheckContext, Promise<SinfoRow[]>>();

/** sinfo once per doctor run, shared by the checks that read it. */
function sinfo(c: CheckContext): Promise<SinfoRow[]> {
  let run = sinfoRuns.get(c);
  if (!run) {
    run = c.exec(SINFO, TIMEOUT_MS).then((result) => {
      if (result.code !== 0) throw mapSlurmError('sinfo', result, c.hostLabel);
      return parseSinfo(result.stdout);
    });
    sinfoRuns.set(c, run);
  }
  return run;
}

/** The partitions the job may run in: the profile's (several, comma-separated), else the default one. */
function targetRows(rows: SinfoRow[], options: JobOptions): { names: string[]; rows: SinfoRow[]; missing: string[] } {
  const names = options.partition ? options.partition.split(',') : [...new Set(rows.filter((r) => r.isDefault).map((r) => r.partition))];
  return { names, rows: rows.filter((r) => names.includes(r.partition)), missing: names.filter((n) => !rows.some((r) => r.partition === n)) };
}

function partitionList(rows: SinfoRow[]): string {
  return [...new Set(rows.map((r) => `${r.partition}${r.isDefault ? ' (default)' : ''}`))].join(', ') || 'none';
}

/** The same list for the renderer's words: sinfo's own marks (`*`: the default), '–' for none. */
function partitionNames(rows: SinfoRow[]): string {
  return [...new Set(rows.map((r) => `${r.partition}${r.isDefault ? '*' : ''}`))].join(', ') || '–';
}

export const slurmLogin: Check = async (c) => {
  const health = await c.health();
  if (health.reachable) return pass(`Slurm ${health.version ?? '?'} answers on the login node ${c.hostLabel} (sinfo).`, say('slurmAnswers', { version: health.version ?? '?', host: hostParam(c) }));
  // The detail is Slurm's (or the SSH layer's) own error text, shown as it is; only the fix has words here.
  return problem('fail', health.error?.message ?? `sinfo does not answer on ${c.hostLabel}.`, 'Check that this server is a Slurm login node: `sinfo` must work in a plain SSH session there.', 'sinfo --version', 'server', say('slurmLoginFailed'));
};

export const slurmPartition: Check = async (c) => {
  const rows = await sinfo(c);
  const options = jobOptionsOfProfile(c.profile);
  const target = targetRows(rows, options);
  if (target.names.length === 0) {
    return problem('fail', `The cluster has no default partition, and the profile names none (sinfo lists: ${partitionList(rows)}).`, 'Choose a partition in the profile\'s Slurm options.', 'sinfo -s', 'server', say('slurmNoDefaultPartition', { partitions: partitionNames(rows) }));
  }
  if (target.missing.length > 0) {
    return problem(
      'fail',
      `Partition ${target.missing.join(', ')} does not exist on this cluster (sinfo lists: ${partitionList(rows)}).`,
      'Choose one of the partitions sinfo lists, or leave the partition empty for the default one.',
      'sinfo -s',
      'server',
      say('slurmPartitionMissing', { missing: target.missing.join(', '), partitions: partitionNames(rows) }),
    );
  }
  const down = target.names.filter((n) => !target.rows.some((r) => r.partition === n && r.up));
  if (down.length === target.names.length) {
    return problem('fail', `Partition ${down.join(', ')} is not up: jobs there wait until the admins open it.`, 'Choose another partition, or ask the cluster\'s admins when it reopens.', 'sinfo -s', 'server', say('slurmPartitionDown', { partition: down.join(', ') }));
  }
  const nodes = target.rows.reduce((n, r) => n + r.nodes, 0);
  return pass(
    `Partition ${target.names.join(', ')}${options.partition ? '' : ' (the default)'} is up with ${nodes} node${nodes === 1 ? '' : 's'}.`,
    say(options.partition ? 'slurmPartitionUp' : 'slurmPartitionUpDefault', { partition: target.names.join(', '), nodes }),
  );
};

export const slurmGpus: Check = async (c) => {
  const options = jobOptionsOfProfile(c.profile);
  if (!options.gpus) return problem('warn', 'The job asks for no GPUs: the swarm server can run, but training needs at least one.', 'Set GPUs in the profile\'s Slurm options (e.g. 1, as --gres=gpu:1).', null, null, say('slurmNoGpusAsked'));
  const { count, type } = options.gpus;
  const target = targetRows(await sinfo(c), options);
  if (target.rows.length === 0) return skip('The partition is unknown (see the partition check), so its GPUs are too.', say('slurmGpusPartitionUnknown'));
  const perNode = target.rows.map((r) => r.gpus.filter((g) => !type || g.type === type).reduce((n, g) => n + g.count, 0));
  const most = Math.max(0, ...perNode);
  const asked = `${count}${type ? ` ${type}` : ''} GPU${count === 1 ? '' : 's'}`;
  // The request without words: "2" or "2 × a100".
  const facts = { asked: type ? `${count} × ${type}` : String(count), partition: target.names.join(', '), most, type: type ?? '' };
  if (most === 0) {
    const kinds = [...new Set(target.rows.flatMap((r) => r.gpus.map((g) => g.type || 'untyped')))];
    return problem(
      'fail',
      `No node of ${target.names.join(', ')} has ${type ? `GPUs of type ${type}` : 'GPUs'}${kinds.length ? ` (types there: ${kinds.join(', ')})` : ''}.`,
      'Choose a GPU partition, or the type sinfo lists (or no type).',
      "sinfo -o '%P %G %D'",
      'server',
      say(type ? 'slurmNoGpuOfType' : 'slurmNoGpuNodes', { ...facts, kinds: kinds.join(', ') || '–' }),
    );
  }
  if (count > most) {
    return problem('fail', `The job asks for ${asked}, but the nodes of ${target.names.join(', ')} have at most ${most}: it could never start.`, `Ask for at most ${most} GPUs (a job runs on one node), or choose a partition with bigger nodes.`, "sinfo -o '%P %G %D'", 'server', say('slurmTooManyGpus', facts));
  }
  return pass(`The job asks for ${asked}; nodes of ${target.names.join(', ')} have up to ${most}.`, say('slurmGpusFit', facts));
};

export const slurmTime: Check = async (c) => {
  const options = jobOptionsOfProfile(c.profile);
  const target = targetRows(await sinfo(c), options);
  const max = target.rows.map((r) => r.maxTime).reduce<number | null>((a, b) => (a === null || b === null ? null : Math.max(a, b)), target.rows.length ? 0 : null);
  const limit = options.timeLimit ? slurmTimeLimitSeconds(options.timeLimit) : null;
  if (limit === null) {
    const def = target.rows.find((r) => r.defaultTime !== null)?.defaultTime ?? null;
    return problem(
      'warn',
      `No time limit is set: the partition's default applies (${def === null ? (max === null ? 'none set, so its maximum: unlimited' : `none set, so its maximum: ${hours(max)}`) : hours(def)}). When the limit is reached Slurm stops the server and training ends.`,
      'Set a time limit in the profile\'s Slurm options that covers your training, e.g. 24:00:00.',
      null,
      null,
      // Which limit applies instead: the partition's default, else its maximum, else none at all.
      def !== null ? say('slurmNoTimeLimitDefault', { time: hours(def) }) : max !== null ? say('slurmNoTimeLimitMax', { time: hours(max) }) : say('slurmNoTimeLimitUnlimited'),
    );
  }
  const facts = { limit: options.timeLimit ?? '', hours: hours(limit), partition: target.names.join(', '), max: max === null ? '' : hours(max), warn: options.warnBeforeLimitSeconds };
  if (max !== null && limit > max) {
    return problem('fail', `The time limit ${options.timeLimit} is longer than ${target.names.join(', ')} allows (${hours(max)}): Slurm would refuse or hold the job.`, `Set at most ${hours(max)}, or choose a partition with a longer limit.`, 'sinfo -o "%P %l"', 'server', say('slurmTimeTooLong', facts));
  }
  return pass(
    `Time limit ${options.timeLimit} (${hours(limit)}); the partition allows ${max === null ? 'any' : hours(max)}. The app warns ${options.warnBeforeLimitSeconds} s before it.`,
    say(max === null ? 'slurmTimeOkAny' : 'slurmTimeOk', facts),
  );
};

/** Asks the scheduler itself, without submitting: `sbatch --test-only` with the exact options Start uses. */
export const slurmSubmit: Check = async (c) => {
  const options = jobOptionsOfProfile(c.profile);
  const lines = sbatchOptions({ profileId: c.profile.id, appVersion: '0.0.0', envNames: [] }, options)
    // --test-only creates nothing, but the output folder is the job folder's: test from $HOME.
    .filter((o) => !o.startsWith('--output='));
  const script = ['#!/bin/bash', ...lines.map((o) => `#SBATCH ${o}`), 'true', ''].join('\n');
  const result = await c.exec(`cd "$HOME" && sbatch --test-only <<'AGENTSWARM_TEST_ONLY'\n${script}AGENTSWARM_TEST_ONLY`, TIMEOUT_MS);
  const said = `${result.stdout}\n${result.stderr}`;
  // "sbatch: Job 243 to start at 2026-12-04T21:37:35 using 1 processors on nodes vm in partition debug"
  const m = /to start at (\S+) using (\d+) processors? on nodes? (\S+) in partition (\S+)/.exec(said);
  if (result.code === 0 && m) {
    return pass(
      `Slurm accepts the job as configured: it would start at ${m[1]!.replace('T', ' ')} on ${m[3]} in partition ${m[4]} (sbatch --test-only; nothing was submitted).`,
      say('slurmAccepted', { time: m[1]!.replace('T', ' '), nodes: m[3]!, partition: m[4]! }),
    );
  }
  if (result.code === 0) return pass('Slurm accepts the job as configured (sbatch --test-only; nothing was submitted).', say('slurmAcceptedPlain'));
  const error = mapSlurmError('sbatch', result, c.hostLabel);
  // The detail is Slurm's own refusal (what to change), shown as it is; the fix has words here.
  return problem('fail', error.message, 'Change the profile\'s Slurm options as the message says; Start would be refused the same way.', 'sbatch --test-only job.sh', 'server', say('slurmRefused'));
};

export const slurmHome: Check = async (c): Promise<Finding> => {
  const result = await c.exec('mkdir -p "$HOME/.agentswarm/slurm" && test -w "$HOME/.agentswarm/slurm" && df -Pk "$HOME" | tail -n 1', TIMEOUT_MS);
  if (result.code !== 0) {
    const said = result.stderr.trim() || `exit ${result.code}`;
    return problem(
      'fail',
      `The job folder ~/.agentswarm/slurm cannot be made or written on ${c.hostLabel}: ${said}.`,
      'The app keeps each job\'s script, output and port file there: free space or fix the permissions of your home folder.',
      'ls -ld ~ ~/.agentswarm',
      'server',
      say('slurmHomeDenied', { host: hostParam(c), said }),
    );
  }
  const free = Number(result.stdout.trim().split(/\s+/)[3]);
  if (Number.isFinite(free) && free < 100 * 1024) {
    return problem('warn', `Only ${Math.round(free / 1024)} MiB are free in your home folder on ${c.hostLabel}: the job's output may not fit.`, 'Free some space (quota) in your home folder.', 'du -sh ~/.agentswarm', 'server', say('slurmHomeLow', { mib: Math.round(free / 1024), host: hostParam(c) }));
  }
  return pass('The job folder ~/.agentswarm/slurm is writable (compute nodes see it through the shared home folder).', say('slurmHomeOk'));
};

function hours(seconds: number): string {
  const d = Math.floor(seconds / 86400);
  const h = Math.floor((seconds % 86400) / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  return `${d ? `${d}-` : ''}${String(h).padStart(d ? 2 : 1, '0')}:${String(m).padStart(2, '0')}:${String(seconds % 60).padStart(2, '0')}`;
}
