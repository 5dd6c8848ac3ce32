import { createHash } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { createTwoFilesPatch } from 'diff';
import { execa } from 'execa';
import { AppError, isAppError } from '../../shared/errors';
import type { TrainingFormData } from '../../shared/schemas-wizard';
import { writeFileAtomic } from '../util/atomic-file';
import { readIfExists, USER_FILE_MODE } from './project-files';
import { moduleName, renderTrainingCode } from './templates';

export type GeneratedName = 'agent_roll.py' | 'agent_roll_one_episode_debug.py';

export interface CodeTarget {
  buildDir: string;
  collectorFile: string;
  episodeFile: string;
}

export interface FilePreview {
  name: GeneratedName;
  path: string;
  exists: boolean;
  changed: boolean;
  diff: string;
  content: string;
}

export interface GeneratedFiles {
  files: { name: GeneratedName; path: string; sha256: string }[];
  compiledAt: string;
}

/** A compile that takes longer than this is a hung interpreter, not a slow one. */
const PY_COMPILE_TIMEOUT_MS = 60_000;

/** What would be written, with a unified diff against each existing file. Writes nothing. */
export async function previewTrainingCode(resourcesDir: string, target: CodeTarget, form: TrainingFormData): Promise<FilePreview[]> {
  let rendered: Awaited<ReturnType<typeof renderTrainingCode>>;
  try {
    rendered = await renderTrainingCode(resourcesDir, { form, collectorModule: moduleName(target.collectorFile), episodeModule: moduleName(target.episodeFile) });
  } catch (error) {
    if (isAppError(error)) throw error;
    // A template that is missing or does not fit its renderer: the app's resources are damaged, not the user's project.
    throw new AppError(
      'CODE_CHECK_FAILED',
      `The app's training-code templates (${join(resourcesDir, 'templates')}) cannot be used: ${error instanceof Error ? error.message : String(error)}. Reinstall the app; nothing was written.`,
      { cause: error },
    );
  }
  const previews: FilePreview[] = [];
  for (const [name, content] of Object.entries(rendered) as [GeneratedName, string][]) {
    const path = join(target.buildDir, name);
    const existing = await readIfExists(path);
    const changed = existing !== null && existing !== content;
    previews.push({
      name,
      path,
      exists: existing !== null,
      changed,
      diff: changed ? createTwoFilesPatch(`${name} (on disk)`, `${name} (generated)`, existing, content, undefined, undefined, { context: 3 }) : '',
      content,
    });
  }
  return previews;
}

/**
 * Writes both files (each atomically, mode 0644), then `python -m py_compile` on both. A file
 * that exists with other content is written only when named in `overwrite` (else
 * WIZARD_FILE_EXISTS listing them, nothing written). When the compile fails every file is put
 * back as it was (or removed when it was new) and CODE_CHECK_FAILED carries the compiler's words.
 */
export async function generateTrainingCode(
  resourcesDir: string,
  target: CodeTarget,
  request: { form: TrainingFormData; overwrite: readonly GeneratedName[] },
  python: string,
  now: () => Date = () => new Date(),
): Promise<GeneratedFiles> {
  const previews = await previewTrainingCode(resourcesDir, target, request.form);
  const refused = previews.filter((p) => p.changed && !request.overwrite.includes(p.name));
  if (refused.length > 0) {
    throw new AppError(
      'WIZARD_FILE_EXISTS',
      `${refused.map((p) => p.path).join(' and ')} already exist${refused.length === 1 ? 's' : ''} with other content. Read the diff, then confirm overwriting ${refused.map((p) => p.name).join(' and ')} (or move your version aside).`,
    );
  }
  const before = new Map<string, string | null>();
  for (const preview of previews) before.set(preview.path, await readIfExists(preview.path));
  try {
    for (const preview of previews) {
      if (before.get(preview.path) !== preview.content) await writeFileAtomic(preview.path, preview.content, USER_FILE_MODE);
    }
    await pyCompile(python, previews.map((p) => p.path), target.buildDir);
  } catch (error) {
    await restore(before);
    throw error;
  }
  return {
    files: previews.map((p) => ({ name: p.name, path: p.path, sha256: sha256(p.content) })),
    compiledAt: now().toISOString(),
  };
}

/**
 * What `python -m py_compile` checks, without its side effect: py_compile always writes a .pyc into
 * `__pycache__/` next to the file (PYTHONDONTWRITEBYTECODE does not stop it), and the user's project
 * must not get folders it did not ask for. compile() runs the same parser and reports the same errors.
 */
const COMPILE_CHECK = [
  'import sys',
  'failed = False',
  'for path in sys.argv[1:]:',
  '    try:',
  '        with open(path, "rb") as f:',
  '            compile(f.read(), path, "exec", dont_inherit=True)',
  '    except (SyntaxError, ValueError) as e:',
  '        failed = True',
  '        where = f\'  File "{getattr(e, "filename", None) or path}", line {getattr(e, "lineno", None) or "?"}\'',
  '        text = (getattr(e, "text", None) or "").rstrip()',
  '        print(where + ("\\n    " + text if text else ""), file=sys.stderr)',
  '        print(f"{type(e).__name__}: {getattr(e, \'msg\', None) or e}", file=sys.stderr)',
  'sys.exit(1 if failed else 0)',
].join('\n');

/** Compiles the files with `python`: CODE_CHECK_FAILED with the compiler's message when it refuses. */
export async function pyCompile(python: string, files: readonly string[], cwd: string): Promise<void> {
  const result = await execa(python, ['-c', COMPILE_CHECK, ...files], {
    cwd,
    reject: false,
    timeout: PY_COMPILE_TIMEOUT_MS,
    env: { PYTHONDONTWRITEBYTECODE: '1' },
    stdin: 'ignore',
  });
  if (result.timedOut) throw new AppError('CODE_CHECK_FAILED', `${python} did not finish checking the files within ${PY_COMPILE_TIMEOUT_MS / 1000} s; the files were put back as they were.`);
  // No exit code and no timeout: the interpreter did not start at all (ENOENT, EACCES).
  if (result.exitCode === undefined) {
    throw new AppError('PYTHON_NOT_FOUND', `Could not run ${python} to check the generated files (${result.code ?? 'it did not start'}). Choose another Python interpreter in the project step; the files were put back as they were.`);
  }
  if (result.exitCode !== 0) {
    const words = `${result.stderr}\n${result.stdout}`.trim().split('\n').slice(-12).join('\n');
    throw new AppError('CODE_CHECK_FAILED', `The generated files do not compile, so they were put back as they were:\n${words}`);
  }
}

async function restore(before: ReadonlyMap<string, string | null>): Promise<void> {
  for (const [path, content] of before) {
    if (content === null) await rm(path, { force: true });
    else if ((await readIfExists(path)) !== content) await writeFileAtomic(path, content, USER_FILE_MODE);
  }
}

export function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
