import { createHash, randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { access, mkdir, readFile, realpath, stat } from 'node:fs/promises';
import { basename, dirname, join, relative, sep } from 'node:path';
import { AppError } from '../../shared/errors';
import type { ProjectSetupData } from '../../shared/schemas-wizard';
import { writeFileAtomic } from '../util/atomic-file';
import { moduleName, renderScaffold, requireImportableModule, type ScaffoldFileName } from './templates';

/** What the wizard keeps about the project (ProjectView without python and test results). */
export interface ProjectLayout {
  mode: 'scaffold' | 'adopt';
  projectDir: string;
  buildId: string | null;
  buildDir: string;
  collectorFile: string;
  episodeFile: string;
  rewardStyle: 'native' | 'judge' | null;
  /** Scaffold: the files as written now (path, sha256), to tell the wizard's own content from the user's edits later. */
  written?: { path: string; sha256: string }[];
}

/** User code is the user's: readable by their tools like any file they wrote (not the app's 0600). */
export const USER_FILE_MODE = 0o644;

/** `tutorial/opencode_build_<id>/` as in AgentJet's guide; ids are short and folder-safe. */
export function buildDirOf(projectDir: string, buildId: string): string {
  return join(projectDir, 'tutorial', `opencode_build_${buildId}`);
}

export function randomBuildId(): string {
  return randomBytes(3).toString('hex');
}

/**
 * Scaffolds the two starter files, or checks the user's own. Nothing that exists and differs is
 * ever written over (WIZARD_FILE_EXISTS names it); an unusable folder or a file that is not what
 * the step needs is PROJECT_INVALID with what to do.
 */
export async function setUpProject(
  resourcesDir: string,
  setup: ProjectSetupData,
  newId: () => string = randomBuildId,
  /** The files as the wizard wrote them last (path → sha256): still so, they are rewritten in place without asking. */
  known: ReadonlyMap<string, string> = new Map(),
): Promise<ProjectLayout> {
  const projectDir = await usableProjectDir(setup.projectDir);
  if (setup.mode === 'adopt') return adopt(projectDir, setup.collectorFile, setup.episodeFile);
  const buildId = setup.buildId ?? (await freshBuildId(projectDir, newId));
  const buildDir = buildDirOf(projectDir, buildId);
  const files = await renderScaffold(resourcesDir, { buildId, rewardStyle: setup.rewardStyle, agentCommand: setup.agentCommand });
  const targets = Object.entries(files).map(([name, content]) => ({ path: join(buildDir, name), content }));
  // All checks before any write: a refusal leaves the folder exactly as it was.
  const clashes: string[] = [];
  for (const target of targets) {
    const existing = await readIfExists(target.path);
    if (existing === null || existing === target.content) continue;
    // A file exactly as the wizard wrote it is the wizard's to update; anything else is the user's.
    if (known.get(target.path) === sha256(existing)) continue;
    if (!setup.overwrite) clashes.push(target.path);
  }
  if (clashes.length > 0) {
    throw new AppError(
      'WIZARD_FILE_EXISTS',
      `${clashes.join(' and ')} ${clashes.length === 1 ? 'was' : 'were'} changed since the wizard wrote ${clashes.length === 1 ? 'it' : 'them'} (or ${clashes.length === 1 ? 'is' : 'are'} not the wizard's); the wizard does not write over your changes unless you confirm it. Confirm overwriting, choose another build id, or adopt the existing files instead.`,
    );
  }
  await mkdir(buildDir, { recursive: true });
  for (const target of targets) {
    if ((await readIfExists(target.path)) !== target.content) await writeFileAtomic(target.path, target.content, USER_FILE_MODE);
  }
  return {
    mode: 'scaffold',
    projectDir,
    buildId,
    buildDir,
    collectorFile: join(buildDir, 'get_training_dataset_item_list.py' satisfies ScaffoldFileName),
    episodeFile: join(buildDir, 'run_episode_once.py' satisfies ScaffoldFileName),
    rewardStyle: setup.rewardStyle,
    written: targets.map((target) => ({ path: target.path, sha256: sha256(target.content) })),
  };
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** A new id whose folder does not exist yet: "a new one" must never land on an earlier build's files. */
async function freshBuildId(projectDir: string, newId: () => string): Promise<string> {
  for (let attempt = 0; attempt < 20; attempt += 1) {
    const id = newId();
    if (!(await exists(buildDirOf(projectDir, id)))) return id;
  }
  throw new AppError('PROJECT_INVALID', `Could not find an unused build id under ${join(projectDir, 'tutorial')}. Type a build id of your own.`);
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

async function adopt(projectDir: string, collectorPath: string, episodePath: string): Promise<ProjectLayout> {
  const collectorFile = await fileInside(projectDir, collectorPath, 'dataset collector');
  const episodeFile = await fileInside(projectDir, episodePath, 'episode runner');
  // The training scripts import both by name from their own folder (the episode runner's): a file they
  // could not import is refused now, not when the generated code first runs.
  if (dirname(collectorFile) !== dirname(episodeFile)) {
    throw new AppError(
      'PROJECT_INVALID',
      `The dataset collector ${collectorFile} and the episode runner ${episodeFile} must be in the same folder: the training scripts are written next to the episode runner and import both from there. Move (or copy) the collector into ${dirname(episodeFile)}, then choose it again.`,
    );
  }
  requireImportableModule('dataset collector', moduleName(collectorFile));
  requireImportableModule('episode runner', moduleName(episodeFile));
  const collector = await readFile(collectorFile, 'utf8');
  if (!/^\s*(async\s+)?def\s+get_training_dataset_item_list\s*\(/m.test(collector)) {
    throw new AppError(
      'PROJECT_INVALID',
      `${collectorFile} does not look like a dataset collector: it should define a function get_training_dataset_item_list() that returns the list of training items (string ids or dicts).`,
    );
  }
  const episode = await readFile(episodeFile, 'utf8');
  if (!/\bargparse\b|\bsys\.argv\b/.test(episode) || !/__name__\s*==\s*['"]__main__['"]/.test(episode)) {
    throw new AppError(
      'PROJECT_INVALID',
      `${episodeFile} does not look like an episode runner: it should be a script (if __name__ == "__main__") that takes the item id on its command line (argparse or sys.argv), runs the agent once and prints the reward.`,
    );
  }
  return { mode: 'adopt', projectDir, buildId: null, buildDir: dirname(episodeFile), collectorFile, episodeFile, rewardStyle: null };
}

/** The project folder, resolved (symlinks followed), that exists, is a folder and can be written. */
async function usableProjectDir(projectDir: string): Promise<string> {
  let resolved: string;
  try {
    resolved = await realpath(projectDir);
  } catch {
    throw new AppError('PROJECT_INVALID', `The project folder ${projectDir} does not exist. Create it (or pick an existing folder), then choose it again.`);
  }
  if (!(await stat(resolved)).isDirectory()) {
    throw new AppError('PROJECT_INVALID', `${projectDir} is a file, not a folder. Choose the folder that holds your agent's code.`);
  }
  try {
    await access(resolved, constants.W_OK);
  } catch {
    throw new AppError('PROJECT_INVALID', `The app cannot write into ${projectDir} (no permission). Give your user write access (e.g. chmod u+w "${projectDir}") or choose a folder you own.`);
  }
  return resolved;
}

/** An existing regular file inside the project (symlinks resolved: a link out of it is refused too). */
async function fileInside(projectDir: string, path: string, what: string): Promise<string> {
  let resolved: string;
  try {
    resolved = await realpath(path);
  } catch {
    throw new AppError('PROJECT_INVALID', `The ${what} ${path} does not exist. Check the path, or let the wizard scaffold one.`);
  }
  const rel = relative(projectDir, resolved);
  if (rel === '' || rel.startsWith(`..${sep}`) || rel === '..' || rel.startsWith(sep)) {
    throw new AppError('PROJECT_INVALID', `The ${what} ${path} is outside the project folder ${projectDir}. Choose a file inside it (the scripts run from the project).`);
  }
  if (!(await stat(resolved)).isFile()) throw new AppError('PROJECT_INVALID', `The ${what} ${path} is not a file.`);
  if (!basename(resolved).endsWith('.py')) throw new AppError('PROJECT_INVALID', `The ${what} ${path} is not a Python file (.py).`);
  return resolved;
}

/** The file's text, or null when there is none. */
export async function readIfExists(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}
