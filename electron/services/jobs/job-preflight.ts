import { readFile, stat } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { AppError } from '../../shared/errors';
import type { JobStart } from '../../shared/schemas-jobs';
import { requireLlmFor } from '../secrets/secret-binding';
import { LLM_ENV_NAMES, llmSecretEnv } from '../secrets/secret-env';
import type { SecretVaultApi } from '../secrets/vault-api';
import { installHint, isExecutable, probeInterpreter } from './python-discovery';

/** Kinds whose scripts import `ajet` (the templates' agent_roll*.py): checked before they start. */
const NEEDS_AJET = new Set<JobStart['kind']>(['debug-episode', 'train']);
/** Kinds that talk to a swarm server and may end its training for everyone (stop_engine, force_restart). */
const MAY_RESTART_ENGINE = new Set<JobStart['kind']>(['debug-episode', 'train']);

/** What a script must not do unconfirmed: either ends the training of every client of that server. */
export function engineRestartCalls(source: string): string[] {
  const found = new Set<string>();
  for (const raw of source.split('\n')) {
    const line = raw.replace(/#.*$/, '');
    if (/force_restart\s*=\s*True\b/.test(line)) found.add('force_restart=True');
    if (/\.stop_engine\s*\(/.test(line)) found.add('stop_engine()');
  }
  return [...found];
}

/** The working directory must exist and be a folder: a job never runs "somewhere". */
export async function checkCwd(cwd: string): Promise<void> {
  const info = await stat(cwd).catch(() => null);
  if (!info?.isDirectory()) {
    throw new AppError('PROJECT_INVALID', `The job's folder ${cwd} does not exist (or is not a folder). Choose the agent project's folder again.`);
  }
}

/** The script's absolute path; it must exist. */
export async function resolveScript(cwd: string, script: string): Promise<string> {
  const path = isAbsolute(script) ? script : resolve(cwd, script);
  const info = await stat(path).catch(() => null);
  if (!info?.isFile()) throw new AppError('PROJECT_INVALID', `The script ${path} does not exist. Generate it in the wizard, or pick the file again.`);
  return path;
}

export async function checkPython(python: string): Promise<void> {
  if (!(await isExecutable(python))) {
    throw new AppError('PYTHON_NOT_FOUND', `Python was not found at ${python} (missing, or not executable). Pick an interpreter from the list, or create the project's venv (python3 -m venv .venv).`);
  }
}

/** `import ajet` in the job's interpreter, from the job's folder and with its environment. */
export async function checkAjet(request: JobStart, env: NodeJS.ProcessEnv, timeoutMs = 20_000): Promise<void> {
  if (!NEEDS_AJET.has(request.kind)) return;
  const probe = await probeInterpreter(request.python, 'custom', { cwd: request.cwd, env, timeoutMs });
  if (probe.version === null) throw new AppError('PYTHON_NOT_FOUND', probe.problem ?? `${request.python} could not run.`);
  if (!probe.ajet.installed) {
    throw new AppError('AJET_NOT_INSTALLED', `AgentJet's client ("ajet") cannot be imported by ${request.python}. ${installHint(request.python)}`);
  }
}

export async function checkEngineRestart(request: JobStart, scriptPath: string): Promise<void> {
  if (!MAY_RESTART_ENGINE.has(request.kind) || request.confirmEngineRestart) return;
  const calls = engineRestartCalls(await readFile(scriptPath, 'utf8'));
  if (calls.length > 0) {
    throw new AppError(
      'JOB_NEEDS_CONFIRMATION',
      `${scriptPath} calls ${calls.join(' and ')}, which ends the training of every client of that swarm server. Confirm that this is wanted, or set force_restart=False in the script.`,
    );
  }
}

/** GET <url>/health: the swarm server answers, through its tunnel for a remote one. */
export async function checkSwarmHealth(url: string | null, target: { engineId: string; containerId: string }, timeoutMs = 4000): Promise<void> {
  if (url === null) {
    throw new AppError(
      'SWARM_UNREACHABLE',
      `The swarm server ${target.containerId.slice(0, 12)} on ${target.engineId} is not running or not watched by the app. Start it (Servers, or the wizard's swarm step) and try again.`,
    );
  }
  const health = `${url.replace(/\/+$/, '')}/health`;
  let why: string;
  try {
    const response = await fetch(health, { signal: AbortSignal.timeout(timeoutMs) });
    await response.body?.cancel();
    if (response.ok) return;
    why = `it answered HTTP ${response.status}`;
  } catch (error) {
    why = describeFetchError(error, timeoutMs);
  }
  throw new AppError(
    'SWARM_UNREACHABLE',
    `The swarm server at ${url} does not answer ${health} (${why}). Start the server (or the dry run); for a remote server, bring its tunnel up. Then try again.`,
  );
}

/** A failed health request in words: what happened on the wire, not undici's "fetch failed". */
function describeFetchError(error: unknown, timeoutMs: number): string {
  const name = (error as Error).name;
  if (name === 'TimeoutError' || name === 'AbortError') return `no answer within ${timeoutMs / 1000} s: something listens there but does not respond`;
  const code = (error as { cause?: { code?: string } }).cause?.code;
  if (code === 'ECONNREFUSED') return 'connection refused: nothing listens on that port';
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return 'the connection was closed without an answer';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'the host name does not resolve';
  return code ?? String((error as Error).message);
}

/** Set by the job from its request only: a value inherited from the app's own environment would point at the wrong server. */
const JOB_OWNED_ENV = ['AJET_SWARM_URL', 'REMOTE_MODEL_PATH'] as const;

/**
 * The process's whole environment: ours, the job's plain settings, and the LLM endpoint from the
 * vault (secrets only here, never argv). OPENAI_MODEL / AJET_DEBUG_MODEL are the secret's model.
 */
export async function jobEnv(
  request: JobStart,
  vault: SecretVaultApi,
  swarmUrl: string | null,
  extraEnv: Readonly<Record<string, string>>,
  base: NodeJS.ProcessEnv = process.env,
): Promise<Record<string, string | undefined>> {
  const env: Record<string, string | undefined> = { ...base, ...extraEnv, PYTHONUNBUFFERED: '1', PYTHONIOENCODING: 'utf-8' };
  for (const name of JOB_OWNED_ENV) delete env[name];
  if (swarmUrl !== null) env.AJET_SWARM_URL = swarmUrl;
  if (request.remoteModelPath !== null) env.REMOTE_MODEL_PATH = request.remoteModelPath;
  if (request.llmSecretId !== null) {
    const meta = vault.meta(request.llmSecretId);
    // The key's env overwrites inherited base URLs; one the caller set on purpose to another origin is refused, not silently replaced.
    for (const name of LLM_ENV_NAMES.baseUrl) {
      const url = extraEnv[name];
      if (meta && url !== undefined) requireLlmFor(meta, url, `The job (its ${name})`);
    }
    Object.assign(env, await llmSecretEnv(vault, request.llmSecretId));
    const model = vault.meta(request.llmSecretId)?.llm?.model;
    if (model) {
      env.OPENAI_MODEL = model;
      env.AJET_DEBUG_MODEL = model;
    }
  }
  return env;
}
