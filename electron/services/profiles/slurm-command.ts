import type { Profile, ProfileCommand } from '../../shared/schemas-profiles';
import { sbatchCommand, slurmJobName, slurmJobScript, slurmOutputPath, slurmStateDir } from '../engines/slurm/job-script';
import { jobOptionsOf } from '../engines/slurm/slurm-spec';
import { SECRET_MASK } from './docker-run-command';
import { buildProfileSpec } from './spec-builder';

/**
 * "Show the command" for a profile on a Slurm login node: the job script the app would submit
 * (the same template, the same options as a Start), followed by how it is submitted. Values of the
 * profile's variables never appear: the script names them only (the app sends the values to a 0600
 * file through stdin at Start), so secrets cannot leak here even unmasked.
 */
export function slurmProfileCommand(profile: Profile, options: { appVersion: string; loginNode: string }): ProfileCommand {
  // The spec a Start would build (masked values: only the names are used), so the options match exactly.
  const masked = Object.fromEntries(profile.secretEnv.map((name) => [name, SECRET_MASK]));
  const spec = buildProfileSpec(profile, { appVersion: options.appVersion, secrets: masked, home: null, nameSuffix: 'manual' });
  const jobOptions = jobOptionsOf(spec);
  const envNames = Object.keys(spec.env);
  const script = slurmJobScript({ profileId: profile.id, appVersion: options.appVersion, envNames }, jobOptions);
  const dir = slurmStateDir(profile.id);
  const command = [script.trimEnd(), '', `# ===== Save the script above as ${dir}/job.sh on the login node, then submit it with: =====`, sbatchCommand(profile.id), ''].join('\n');

  const notes = [
    `Run it on the login node ${options.loginNode}, not on this computer: sbatch prints the job id, and Slurm starts the job on a compute node it chooses.`,
    `The job's output goes to ${slurmOutputPath(profile.id, '<job id>')}; the folder must exist before the job starts (the mkdir above makes it).`,
    `On the node the job picks a free port from 10086 up and writes the node and port to ${dir}/endpoint: the app reads that file through the login node and forwards a port of this computer to it.`,
  ];
  if (envNames.length > 0) {
    notes.push(
      `The server's variables (${envNames.join(', ')}) are not in the script: the app writes them as export lines to ${dir}/env (readable only by you), which the job reads and deletes at start. By hand, create that file yourself before sbatch; the app never shows secret values.`,
    );
  }
  const limit = jobOptions.timeLimit ? `its time limit (${jobOptions.timeLimit})` : "the partition's time limit";
  notes.push(
    `Slurm stops the job at ${limit}: training on it stops then, and work since the last checkpoint is lost. The app warns ${jobOptions.warnBeforeLimitSeconds} s before (--signal=B:USR1).`,
    'The swarm server listens on every network interface of the compute node (AgentJet hard-codes it) and its API has no authentication: anyone who can reach that node on the cluster network can use it while the job runs.',
    `Stop it with: scancel -n ${slurmJobName(profile.id)} (on the login node).`,
  );
  return { command, notes };
}
