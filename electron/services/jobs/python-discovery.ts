import { constants } from 'node:fs';
import { access, readdir, realpath, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { execa } from 'execa';
import type { PythonDiscoveryData, PythonInterpreterData } from '../../shared/schemas-jobs';

type Source = PythonInterpreterData['source'];

const TOO_OLD = "too old for AgentJet's client";

/** How to give an interpreter AgentJet's client without the GPU extras (agentjet-swarm.md §6.2). */
export function installHint(python = 'python'): string {
  return (
    `Install AgentJet's client (no GPU needed) into this interpreter: git clone https://github.com/modelscope/AgentJet && ` +
    `cd AgentJet && ${python} -m pip install -e .   (without the "[verl]" extra, which is for GPU servers only).`
  );
}

const IS_WINDOWS = process.platform === 'win32';
/** Where a venv or conda env keeps its interpreter. */
const ENV_PYTHON = IS_WINDOWS ? ['python.exe', join('Scripts', 'python.exe')] : [join('bin', 'python'), join('bin', 'python3')];

/**
 * One call per interpreter: its version, prefix (tells a venv from the interpreter it links to)
 * and whether `import ajet` works. Python 2 syntax too, so an old interpreter says what it is.
 */
const PROBE = [
  // The standard modules first without the project folder on sys.path (a json.py or platform.py of
  // the user's must not break the probe); `import ajet` then sees the project as the job will.
  'import sys',
  'here = sys.path.pop(0) if sys.path and sys.path[0] in ("", ".") else None',
  'import json, platform',
  'if here is not None: sys.path.insert(0, here)',
  'out = {"version": platform.python_version(), "prefix": sys.prefix, "ajet": False, "ajetVersion": None, "error": None}',
  'try:',
  '    import ajet',
  '    out["ajet"] = True',
  '    v = getattr(ajet, "__version__", None)',
  '    out["ajetVersion"] = str(v) if v is not None else None',
  'except BaseException as e:',
  '    out["error"] = type(e).__name__ + ": " + str(e)',
  'sys.stdout.write("AGENTSWARM_PROBE " + json.dumps(out) + "\\n")',
].join('\n');

export interface ProbeOptions {
  /** The folder `import ajet` is tried from (a project's own package counts); default: the process's. */
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
}

export interface ProbedInterpreter extends PythonInterpreterData {
  /** sys.prefix (null when it did not run): with the real path, what makes two paths the same interpreter. */
  prefix: string | null;
}

/** Whether `path` is an executable regular file. */
export async function isExecutable(path: string): Promise<boolean> {
  try {
    if (!(await stat(path)).isFile()) return false;
    await access(path, IS_WINDOWS ? constants.F_OK : constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Runs one interpreter once: version, `import ajet`, and a plain problem when something is wrong. */
export async function probeInterpreter(path: string, source: Source, options: ProbeOptions = {}): Promise<ProbedInterpreter> {
  const base = { path, source, version: null, ajet: { installed: false, version: null }, prefix: null };
  if (!(await isExecutable(path))) return { ...base, problem: `${path} does not exist or is not an executable file.` };
  const run = await execa(path, ['-c', PROBE], {
    reject: false,
    timeout: options.timeoutMs ?? 15_000,
    stdin: 'ignore',
    ...(options.cwd ? { cwd: options.cwd } : {}),
    env: { ...(options.env ?? process.env), PYTHONIOENCODING: 'utf-8' },
    extendEnv: false,
  });
  const line = String(run.stdout ?? '')
    .split('\n')
    .find((l) => l.startsWith('AGENTSWARM_PROBE '));
  if (!line) {
    const lastErr = String(run.stderr ?? '').trim().split('\n').at(-1) ?? '';
    const why: string = run.timedOut ? `did not answer within ${Math.round((options.timeoutMs ?? 15_000) / 1000)} s` : lastErr || run.shortMessage || 'no output';
    return { ...base, problem: `${path} could not run: ${why.slice(0, 300)}` };
  }
  const probe = JSON.parse(line.slice('AGENTSWARM_PROBE '.length)) as { version: string; prefix: string; ajet: boolean; ajetVersion: string | null; error: string | null };
  const version = `Python ${probe.version}`;
  const [major, minor] = probe.version.split('.').map(Number);
  let problem: string | null = null;
  if ((major ?? 0) < 3 || (major === 3 && (minor ?? 0) < 10)) problem = `${version} is ${TOO_OLD}: use Python 3.10 or newer.`;
  else if (!probe.ajet) {
    problem = probe.error && !/No module named '?ajet'?$/.test(probe.error)
      ? `"import ajet" fails in this interpreter (${probe.error.slice(0, 200)}). Reinstall AgentJet's client.`
      : `AgentJet's client ("ajet") is not installed in this interpreter. ${installHint(path)}`;
  }
  return { path, source, version, ajet: { installed: probe.ajet, version: probe.ajetVersion }, prefix: probe.prefix, problem };
}

/** The interpreters of the env folders under `dir` (conda's `envs/`): each `<dir>/<env>/bin/python`. */
async function envsUnder(dir: string): Promise<string[]> {
  try {
    const names = await readdir(dir);
    return names.map((name) => join(dir, name));
  } catch {
    return [];
  }
}

async function firstExecutable(envDir: string): Promise<string | null> {
  for (const rel of ENV_PYTHON) {
    const candidate = join(envDir, rel);
    if (await isExecutable(candidate)) return candidate;
  }
  return null;
}

/** conda's own list (`conda env list --json`), when conda is on PATH; its absence is normal. */
async function condaEnvList(env: NodeJS.ProcessEnv): Promise<string[]> {
  const conda = await onPath('conda', env);
  if (!conda) return [];
  const run = await execa(conda, ['env', 'list', '--json'], { reject: false, timeout: 8_000, stdin: 'ignore', env, extendEnv: false });
  try {
    const parsed = JSON.parse(String(run.stdout ?? '')) as { envs?: unknown };
    return Array.isArray(parsed.envs) ? parsed.envs.filter((e): e is string => typeof e === 'string') : [];
  } catch {
    return [];
  }
}

/** The first `name` on PATH (what a shell would run), without running anything. */
export async function onPath(name: string, env: NodeJS.ProcessEnv): Promise<string | null> {
  const exts = IS_WINDOWS ? (env.PATHEXT ?? '.EXE;.BAT;.CMD').split(';') : [''];
  for (const dir of (env.PATH ?? env.Path ?? '').split(delimiter)) {
    if (!dir) continue;
    for (const ext of exts) {
      const candidate = join(dir, name + ext);
      if (await isExecutable(candidate)) return candidate;
    }
  }
  return null;
}

export interface DiscoverOptions {
  env?: NodeJS.ProcessEnv;
  home?: string;
  timeoutMs?: number;
}

/**
 * Every Python a job could run with, best first: the one the user picked, the project's
 * `.venv`/`venv`, conda environments, then `python3`/`python` on PATH. Checked in parallel; two
 * paths that are the same interpreter (same real file, same prefix) are shown once.
 */
export async function discoverPython(request: { projectDir: string | null; extra: string | null }, options: DiscoverOptions = {}): Promise<PythonDiscoveryData> {
  const env = options.env ?? process.env;
  const home = options.home ?? homedir();
  const candidates: { path: string; source: Source }[] = [];
  if (request.extra) candidates.push({ path: request.extra, source: 'custom' });
  if (request.projectDir) {
    for (const name of ['.venv', 'venv']) {
      const python = await firstExecutable(join(request.projectDir, name));
      if (python) candidates.push({ path: python, source: 'venv' });
    }
  }
  const condaDirs = new Set<string>();
  if (env.CONDA_PREFIX) condaDirs.add(env.CONDA_PREFIX);
  for (const root of ['miniconda3', 'anaconda3', 'miniforge3', 'mambaforge']) for (const dir of await envsUnder(join(home, root, 'envs'))) condaDirs.add(dir);
  for (const dir of await condaEnvList(env)) condaDirs.add(dir);
  for (const dir of condaDirs) {
    const python = await firstExecutable(dir);
    if (python) candidates.push({ path: python, source: 'conda' });
  }
  for (const name of ['python3', 'python']) {
    const python = await onPath(name, env);
    if (python) candidates.push({ path: python, source: 'path' });
  }

  const unique = candidates.filter((c, i) => candidates.findIndex((d) => d.path === c.path) === i);
  const probed = await Promise.all(
    unique.map(async (c) => ({
      probe: await probeInterpreter(c.path, c.source, { env, ...(request.projectDir ? { cwd: request.projectDir } : {}), ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}) }),
      real: await realpath(c.path).catch(() => c.path),
    })),
  );
  const seen = new Set<string>();
  const interpreters: PythonInterpreterData[] = [];
  for (const { probe, real } of probed) {
    // A venv's python links to the base interpreter: the prefix tells them apart.
    const key = `${real}\0${probe.prefix ?? probe.path}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const { prefix: _prefix, ...view } = probe;
    interpreters.push(view);
  }
  const runs = interpreters.filter((i) => i.version !== null);
  const recent = runs.filter((i) => !i.problem?.includes(TOO_OLD));
  const recommended = recent.find((i) => i.ajet.installed) ?? recent[0] ?? runs[0] ?? null;
  return { interpreters, recommended: recommended?.path ?? null, installHint: installHint() };
}
