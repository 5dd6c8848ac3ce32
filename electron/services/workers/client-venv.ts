import { AppError } from '../../shared/errors';
import type { ClientVenvPlanData, ClientVenvResultData } from '../../shared/schemas-workers';
import { shellQuote, type EngineHost } from '../engines/container-engine';

/**
 * "Create a venv and install the AgentJet client" on an SSH host (issue 34): workers need only the
 * client (no GPU, no `[verl]` extra: reference §6.2), in a venv of the app's own under
 * ~/.agentswarm/venvs so nothing of the user's is touched. The command is shown to the user before it
 * runs, and exactly that text runs (no hidden step); the venv's python is then the worker's interpreter.
 */
export const CLIENT_VENV_DIR = '"$HOME"/.agentswarm/venvs/agentjet-client';
/** AgentJet's repository (the client installs from it: `pip install -e .` in a clone, reference §6.2). */
export const AGENTJET_CLIENT_SOURCE = 'git+https://github.com/modelscope/AgentJet.git';

/** What pip installs: a requirement, a URL or a folder on the host; no option (a leading "-") and no line break. */
function assertSource(source: string): string {
  if (source.startsWith('-') || /[\n\r\0]/.test(source)) {
    throw new AppError('VALIDATION_FAILED', `"${source.slice(0, 80)}" cannot be installed: give a package, a URL (git+https://…) or a folder on that host.`);
  }
  return source;
}

/** The exact command shown and run: make the venv (once), install the client, check that `import ajet` works. */
export function clientVenvCommand(source = AGENTJET_CLIENT_SOURCE): string {
  const venv = CLIENT_VENV_DIR;
  return [
    `python3 -m venv ${venv}`,
    `${venv}/bin/python -m pip install --disable-pip-version-check --no-input ${shellQuote(assertSource(source))}`,
    `${venv}/bin/python -c 'import ajet; print("ajet", getattr(ajet, "__version__", "installed"))'`,
  ].join(' && ');
}

export function clientVenvPlan(hostLabel: string, source?: string): ClientVenvPlanData {
  return { host: hostLabel, command: clientVenvCommand(source), python: `${CLIENT_VENV_DIR}/bin/python` };
}

/** Runs the shown command on the host; the output's tail either way, an AppError with it when it failed. */
export async function createClientVenv(host: EngineHost, source?: string): Promise<ClientVenvResultData> {
  const plan = clientVenvPlan(host.label, source);
  // pip on a slow link takes minutes; `bash -c` is not used: the command is plain sh, run as shown.
  const result = await host.exec(`${plan.command} 2>&1`, { timeoutMs: 15 * 60_000 });
  const output = result.stdout.split('\n').filter((line) => line.trim() !== '').slice(-40);
  if (result.code !== 0) {
    throw new AppError(
      'JOB_CRASHED',
      `Creating the venv with AgentJet's client on ${host.label} failed (exit ${result.code}): ${output.slice(-3).join(' · ') || 'no output'}. The command was: ${plan.command}`,
    );
  }
  // The python a worker runs ("$HOME" is expanded by the host's shell where workers start).
  return { ...plan, output };
}
