import { AppError } from '../../shared/errors';
import { mapSlurmError } from '../engines/slurm/slurm-errors';
import type { DiagnosticSay } from '../../shared/schemas-servers';
import type { SshConnection } from './ssh-connection';
import { words, type StageResult } from './stage-result';

/**
 * "Test connection" for a Slurm login node: one stage that asks the login node what a job submitted
 * from it would meet. `sinfo --version` (the commands are there and find a configuration), then
 * `sinfo -h -o …` (slurmctld answers: partitions, nodes, GPUs). One exec, POSIX sh, each sinfo bounded
 * by `timeout`: measured on 22.05, a SLURM_CONF naming a missing file makes even `sinfo --version` retry
 * for 60 s, and a controller that does not answer costs sinfo 9 s before it says so.
 */

const VERSION_SECONDS = 15;
const PARTITIONS_SECONDS = 25;
/** Partition | availability | nodes | node state | GRES, one line per partition and node state. */
const SINFO_FORMAT = '%P|%a|%D|%t|%G';

export const SLURM_CHECK_SCRIPT = [
  'command -v sinfo >/dev/null 2>&1 || { echo "@@missing"; exit 0; }',
  // Set but naming no readable file: say so at once instead of letting sinfo retry for a minute.
  'if [ -n "${SLURM_CONF:-}" ] && [ ! -r "$SLURM_CONF" ]; then echo "@@noconf $SLURM_CONF"; exit 0; fi',
  't=; command -v timeout >/dev/null 2>&1 && t=timeout',
  `v=$(\${t:+$t ${VERSION_SECONDS}} sinfo --version 2>&1); echo "@@version $?"; printf '%s\\n' "$v"`,
  `p=$(\${t:+$t ${PARTITIONS_SECONDS}} sinfo -h -o '${SINFO_FORMAT}' 2>&1); echo "@@partitions $?"; printf '%s\\n' "$p"`,
].join('\n');

/** The script's time on the host, plus the SSH round trip. */
export const SLURM_CHECK_TIMEOUT_MS = (VERSION_SECONDS + PARTITIONS_SECONDS + 10) * 1000;

export interface SlurmPartitionLine {
  partition: string;
  isDefault: boolean;
  available: string;
  nodes: number;
  state: string;
  gres: string | null;
}

/** `sinfo -h -o '%P|%a|%D|%t|%G'` lines ("debug*|up|1|idle|gpu:fake:2"). */
export function parsePartitionLines(text: string): SlurmPartitionLine[] {
  return text
    .split('\n')
    .map((l) => l.trim().split('|'))
    .filter((f) => f.length === 5 && f[0] !== '')
    .map(([p, a, d, t, g]) => ({
      partition: p!.replace(/\*$/, ''),
      isDefault: p!.endsWith('*'),
      available: a!,
      nodes: Number(d) || 0,
      state: t!,
      gres: g && g !== '(null)' ? g : null,
    }));
}

/** "debug* (1 node idle; GPUs gpu:fake:2)", partitions in sinfo's order, each node state once. */
export function describePartitions(lines: readonly SlurmPartitionLine[]): string {
  const byPartition = new Map<string, SlurmPartitionLine[]>();
  for (const line of lines) byPartition.set(line.partition, [...(byPartition.get(line.partition) ?? []), line]);
  return [...byPartition.entries()]
    .map(([name, rows]) => {
      const states = rows.map((r) => `${r.nodes} node${r.nodes === 1 ? '' : 's'} ${r.state}`).join(', ');
      const gres = [...new Set(rows.map((r) => r.gres).filter((g): g is string => g !== null))];
      const down = rows.every((r) => r.available !== 'up') ? `, partition ${rows[0]!.available}` : '';
      return `${name}${rows[0]!.isDefault ? '*' : ''} (${states}${down}; ${gres.length > 0 ? `GPUs ${gres.join(' ')}` : 'no GPUs'})`;
    })
    .join(', ');
}

/**
 * The partitions in a form without words, for the renderer to quote in any language: sinfo's own
 * names, states and GRES ("debug* 1×idle gpu:fake:2; cpu 2×mix –; old 1×down (drain) –").
 */
export function partitionFacts(lines: readonly SlurmPartitionLine[]): string {
  const byPartition = new Map<string, SlurmPartitionLine[]>();
  for (const line of lines) byPartition.set(line.partition, [...(byPartition.get(line.partition) ?? []), line]);
  return [...byPartition.entries()]
    .map(([name, rows]) => {
      const states = rows.map((r) => `${r.nodes}×${r.state}`).join(',');
      const gres = [...new Set(rows.map((r) => r.gres).filter((g): g is string => g !== null))];
      const down = rows.every((r) => r.available !== 'up') ? ` (${rows[0]!.available})` : '';
      return `${name}${rows[0]!.isDefault ? '*' : ''} ${states}${down} ${gres.length > 0 ? gres.join(' ') : '–'}`;
    })
    .join('; ');
}

/**
 * A failure: `say` words the specifics when the error is ours (absent: the error is Slurm's or the
 * SSH layer's own text, shown as it is), `sayFix` the fix.
 */
function failure(error: AppError, fix: string, sayFix: DiagnosticSay, say?: DiagnosticSay): StageResult {
  return { status: 'fail', detail: null, error: { code: error.code, message: error.message }, fix, sayFix, ...(say ? { say } : {}) };
}

/** The stage from the check script's output (pure: unit-tested with the texts measured on the test bed). */
export function slurmStageResult(stdout: string, host: string, user: string): StageResult {
  const sections = new Map<string, { rc: number; text: string }>();
  let noConf: string | null = null;
  let missing = false;
  let current: { rc: number; text: string } | null = null;
  for (const line of stdout.split('\n')) {
    const m = /^@@(version|partitions) (\d+)$/.exec(line);
    if (m) {
      current = { rc: Number(m[2]), text: '' };
      sections.set(m[1]!, current);
    } else if (line === '@@missing') missing = true;
    else if (line.startsWith('@@noconf ')) noConf = line.slice('@@noconf '.length);
    else if (current) current.text += `${line}\n`;
  }
  if (missing) {
    return failure(
      new AppError('ENGINE_UNREACHABLE', `Not a Slurm login node: sinfo is not found on ${host} (not on the PATH of a non-interactive SSH session of ${user}).`),
      `Check with \`ssh ${host} sinfo --version\`. If this is the cluster's login node and Slurm comes from \`module load slurm\`, load it in ~/.bashrc before its "interactive only" return, or ask the admins for the folder of Slurm's commands; otherwise add this server with the Docker or Podman engine.`,
      words('slurmMissing', { host }),
      words('slurmMissing', { host, user }),
    );
  }
  if (noConf !== null) {
    return failure(
      new AppError('ENGINE_UNREACHABLE', `SLURM_CONF on ${host} names ${noConf}, which ${user} cannot read: Slurm's commands there find no configuration.`),
      `Fix or unset SLURM_CONF for SSH sessions on ${host} (\`ssh ${host} 'echo $SLURM_CONF'\` shows it), or ask the cluster's admins where slurm.conf is.`,
      words('slurmNoConf', { host }),
      words('slurmNoConf', { host, user, path: noConf }),
    );
  }
  const version = sections.get('version');
  const partitions = sections.get('partitions');
  const result = (section: { rc: number; text: string }) => ({ code: section.rc, stdout: '', stderr: section.text });
  if (!version || !partitions) {
    const said = stdout.trim().slice(0, 120);
    return failure(
      new AppError('INTERNAL', `The Slurm check on ${host} printed no answer (${said || 'nothing'}).`),
      `Run \`sinfo --version\` and \`sinfo\` on ${host} to see why.`,
      words('slurmRunBoth', { host }),
      words(said ? 'slurmNoAnswerSaid' : 'slurmNoAnswer', { host, said }),
    );
  }
  if (version.rc !== 0) {
    const timedOut = version.rc === 124;
    const error = timedOut ? new AppError('ENGINE_UNREACHABLE', `sinfo --version on ${host} did not answer within ${VERSION_SECONDS} s.`) : mapSlurmError('sinfo', result(version), host);
    return failure(
      error,
      `Run \`sinfo --version\` on ${host}: Slurm's commands must work there for ${user}.`,
      words('slurmVersion', { host, user }),
      timedOut ? words('slurmVersionTimeout', { host, seconds: VERSION_SECONDS }) : undefined,
    );
  }
  const versionText = version.text.trim().replace(/^slurm(-wlm)?\s+/i, '');
  if (partitions.rc !== 0) {
    const error =
      partitions.rc === 124
        ? new AppError('ENGINE_UNREACHABLE', `Slurm ${versionText} is installed on ${host}, but its controller did not answer sinfo within ${PARTITIONS_SECONDS} s.`)
        : mapSlurmError('sinfo', result(partitions), host);
    return failure(
      error,
      `Slurm ${versionText} is installed, but slurmctld does not answer: \`scontrol ping\` on ${host} tells whether it is down; tell the cluster's admins if it is.`,
      words('slurmCtld', { version: versionText, host }),
      partitions.rc === 124 ? words('slurmCtldTimeout', { version: versionText, host, seconds: PARTITIONS_SECONDS }) : undefined,
    );
  }
  const lines = parsePartitionLines(partitions.text);
  if (lines.length === 0) {
    return {
      status: 'warn',
      detail: `Slurm ${versionText}; no partition is visible to ${user}`,
      error: { code: 'SCHEDULER_REJECTED', message: `Slurm on ${host} shows ${user} no partition: jobs from this login node cannot run.` },
      fix: `Ask the cluster's admins which partition ${user} may use (\`sinfo -a\` lists hidden ones).`,
      say: words('slurmNoPartition', { version: versionText, user, host }),
      sayFix: words('slurmNoPartition', { user }),
    };
  }
  const detail = `Slurm ${versionText}; partitions: ${describePartitions(lines)}`;
  const facts = { version: versionText, host, said: partitionFacts(lines) };
  if (!lines.some((l) => l.gres !== null && /(^|,)gpu(:|\(|$)/.test(l.gres))) {
    return {
      status: 'warn',
      detail,
      error: { code: 'GPU_UNAVAILABLE', message: `No partition on ${host} offers GPUs (no gpu GRES in sinfo): the swarm server would train without them.` },
      fix: `Check with \`sinfo -o '%P %G'\` on ${host}; ask the admins for a GPU partition, or start without GPUs.`,
      say: words('slurmNoGpu', facts),
      sayFix: words('slurmNoGpu', { host }),
    };
  }
  return { status: 'pass', detail, say: words('slurmOk', facts) };
}

/** Runs the check on the login node's connection. */
export async function checkSlurm(server: SshConnection, user: string): Promise<StageResult> {
  try {
    const result = await server.exec(SLURM_CHECK_SCRIPT, { timeoutMs: SLURM_CHECK_TIMEOUT_MS });
    return slurmStageResult(result.stdout, server.target, user);
  } catch (error) {
    const app = error instanceof AppError ? error : new AppError('SSH_DISCONNECTED', String((error as Error)?.message ?? error));
    return failure(app, `Run \`sinfo\` on ${server.target} to see why it hangs.`, words('slurmHangs', { host: server.target }));
  }
}
