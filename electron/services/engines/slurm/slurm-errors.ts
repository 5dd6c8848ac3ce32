import { AppError } from '../../../shared/errors';
import type { HostExecResult } from '../container-engine';

/**
 * The one place that knows Slurm's error texts (22.05, and the wording older versions share) and turns
 * them into AppErrors that name the fix. `command` is the Slurm command that failed (sbatch, squeue, …);
 * `host` how to name the login node in messages.
 */

/** Slurm's own words, without its "sbatch: error: " prefixes, on one line and short enough for a dialog. */
export function slurmSays(result: Pick<HostExecResult, 'stdout' | 'stderr'>): string {
  const lines = `${result.stderr}\n${result.stdout}`
    .split('\n')
    .map((l) => l.replace(/^\s*(sbatch|squeue|scontrol|scancel|sinfo|slurm_load_jobs|srun)(: error)?:\s*/i, '').trim())
    .filter((l) => l !== '');
  const said = [...new Set(lines)].join(' ').replace(/\s+/g, ' ');
  return said.length > 400 ? `${said.slice(0, 400)}…` : said;
}

/** The command is not on the login node's PATH (sh: "not found", bash: "command not found", rc 127). */
function notInstalled(command: string, result: HostExecResult): boolean {
  return result.code === 127 || new RegExp(`\\b${command}\\b.*(command )?not found`, 'i').test(result.stderr);
}

/** What a job script asks Slurm for (its `#SBATCH` lines): named in a rejection, so the user sees which request was too big. */
export interface SlurmRequest {
  /** The GPU option as written (`--gres=gpu:3`, `--gpus=a100:2`) and its count; null: no GPUs asked for. */
  gpus: { option: string; count: number } | null;
  partition: string | null;
  cpusPerTask: number | null;
  /** As written (`16G`). */
  memory: string | null;
}

/** The request of a job script, from its `#SBATCH` lines (the ones job-script.ts writes). */
export function slurmRequestOf(script: string): SlurmRequest {
  const option = (name: string): string | null => {
    const m = new RegExp(`^#SBATCH\\s+--${name}=(\\S+)\\s*$`, 'm').exec(script);
    return m ? m[1]! : null;
  };
  const gres = option('gres');
  const gpusFlag = option('gpus');
  const gpuOption = gres !== null && /^gpu(:|$)/.test(gres) ? `--gres=${gres}` : gpusFlag !== null ? `--gpus=${gpusFlag}` : null;
  const count = gpuOption === null ? null : Number(/(\d+)$/.exec(gpuOption)?.[1] ?? 1);
  const cpus = Number(option('cpus-per-task'));
  return {
    gpus: gpuOption === null ? null : { option: gpuOption, count: count ?? 1 },
    partition: option('partition'),
    cpusPerTask: Number.isInteger(cpus) && cpus > 0 ? cpus : null,
    memory: option('mem'),
  };
}

/** "3 GPUs (--gres=gpu:3), 4 CPUs and 16G of memory in partition debug": what the rejected job asked for. */
export function describeRequest(request: SlurmRequest): string {
  const parts: string[] = [];
  if (request.gpus) parts.push(`${request.gpus.count} GPU${request.gpus.count === 1 ? '' : 's'} (${request.gpus.option})`);
  if (request.cpusPerTask) parts.push(`${request.cpusPerTask} CPU${request.cpusPerTask === 1 ? '' : 's'}`);
  if (request.memory) parts.push(`${request.memory} of memory`);
  const what = parts.length === 0 ? 'one CPU and no GPUs' : parts.length === 1 ? parts[0]! : `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]!}`;
  return `${what} in ${request.partition ? `partition ${request.partition}` : 'the default partition'}`;
}

export interface SlurmErrorContext {
  /** The rejected job's request (sbatch only): the message names it. */
  request?: SlurmRequest;
  /** What the nodes have, as `sinfo -h -o '%P %G %c %m'` printed it (sbatch only, when read after the rejection). */
  nodes?: string | null;
}

export function mapSlurmError(command: string, result: HostExecResult, host: string, context: SlurmErrorContext = {}): AppError {
  const said = slurmSays(result);
  if (notInstalled(command, result)) {
    return new AppError(
      'ENGINE_UNREACHABLE',
      `${command} is not found on ${host}: this login node has no Slurm commands on the PATH of a non-interactive SSH session. Check with \`ssh <login node> ${command} --version\`; if Slurm comes from a module, ask the cluster's admins for the folder of its commands.`,
    );
  }
  if (/DNS SRV lookup failed|Could not establish a configuration source|Unable to process configuration file|slurm\.conf.*(No such file|not found)/i.test(said)) {
    return new AppError('ENGINE_UNREACHABLE', `Slurm's commands on ${host} find no configuration (${said}). Set SLURM_CONF for SSH sessions there, or ask the admins where slurm.conf is.`);
  }
  if (/Unable to contact slurm controller|Socket timed out|Connection refused|Zero Bytes were transmitted|Communication connection failure|Transport endpoint is not connected/i.test(said)) {
    return new AppError('ENGINE_UNREACHABLE', `Slurm's controller does not answer from ${host} (${said}). Wait a minute and try again; if it persists, \`scontrol ping\` on the login node tells whether slurmctld is down.`);
  }
  if (/Munge|Invalid authentication credential|Authentication error/i.test(said)) {
    return new AppError('ENGINE_UNREACHABLE', `Slurm refused the login node's credential (${said}): munge on ${host} is down or its clock is off. Tell the cluster's admins.`);
  }
  if (/Invalid job id specified/i.test(said)) {
    return new AppError('CONTAINER_NOT_FOUND', `Slurm no longer knows this job (${said}): finished jobs are forgotten a short time after they end (MinJobAge).`);
  }
  if (/Access\/permission denied|Permission denied|not the owner|User not authorized/i.test(said)) {
    return new AppError('ENGINE_PERMISSION_DENIED', `Slurm refused this to the login user on ${host} (${said}): only the job's owner (or an operator) may change it.`);
  }
  if (command === 'sbatch') return mapSubmitRejection(said, context);
  return new AppError('INTERNAL', `${command} failed on ${host} (exit ${result.code ?? 'none'}): ${said || 'it printed nothing'}.`);
}

/** sbatch's "Batch job submission failed: <reason>": each reason with the change that fixes it. */
function mapSubmitRejection(said: string, context: SlurmErrorContext): AppError {
  const reason = said.replace(/^.*Batch job submission failed:\s*/i, '') || said || 'no reason given';
  const rejected = (fix: string) => new AppError('SCHEDULER_REJECTED', `Slurm refused the job: ${reason}. ${fix}`);
  if (/Requested node configuration is not available/i.test(reason)) {
    const request = context.request;
    const asked = request ? `The job asks for ${describeRequest(request)}, and no node there has that much. ` : 'No node of that partition has what the job asks for (GPUs, their type, CPUs or memory). ';
    const nodes = context.nodes?.trim() ? ` The nodes have (partition, GPUs, CPUs, memory in MB): ${context.nodes.trim().split('\n').slice(0, 8).join('; ')}.` : '';
    const fewer = request?.gpus ? 'ask for fewer GPUs (or no GPU type)' : 'ask for fewer GPUs';
    return rejected(
      `${asked}\`sinfo -o '%P %G %c %m'\` on the login node shows what the nodes have: ${fewer}, fewer CPUs or less memory, or choose another partition.${nodes}`,
    );
  }
  if (/Invalid partition name|invalid partition/i.test(reason)) {
    return rejected('Choose a partition that `sinfo -s` lists on the login node, or leave it empty for the default one.');
  }
  if (/Invalid account|account\/partition combination/i.test(reason)) {
    return rejected('Choose an account you belong to (`sacctmgr show assoc user=$USER format=account,partition`), or leave it empty for your default account.');
  }
  if (/Invalid qos/i.test(reason)) {
    return rejected('Choose a QoS your account may use (`sacctmgr show assoc user=$USER format=account,qos`), or leave it empty.');
  }
  // Before the time-limit case: this message mentions "time limits" too.
  if (/QOS|accounting\/QOS policy|AssocMax|MaxSubmit/i.test(reason)) {
    return rejected('A limit of your account or QoS forbids this job (too many GPUs, jobs or too much time at once): ask for less, or wait until your other jobs end.');
  }
  if (/time limit/i.test(reason)) {
    return rejected("The time limit is longer than the partition allows: `sinfo -o '%P %l'` shows each partition's maximum. Ask for less time.");
  }
  if (/gres|gpu/i.test(reason)) {
    return rejected("The GPU request is not valid on this cluster: check the GPU type against `sinfo -o '%P %G'`, or try the other GPU flag (--gres or --gpus).");
  }
  return rejected('Change the option Slurm names and submit again.');
}
