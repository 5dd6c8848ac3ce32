import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { setUpProject, type ProjectLayout } from '../../../../electron/services/project/project-files';

const RESOURCES = resolve(import.meta.dirname, '../../../../resources');

/** What the wizard passes back in: the files as it wrote them last. */
function known(layout: ProjectLayout): Map<string, string> {
  return new Map((layout.written ?? []).map((w) => [w.path, w.sha256]));
}

describe('creating the scripts again (issue 32, item 4)', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'aswz-inplace-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('rewrites the files the wizard wrote, in the same build folder, without asking', async () => {
    const first = await setUpProject(RESOURCES, { mode: 'scaffold', projectDir: dir, buildId: 'b1', rewardStyle: 'native', agentCommand: 'python a.py' });
    expect(first.written).toHaveLength(2);
    const again = await setUpProject(RESOURCES, { mode: 'scaffold', projectDir: dir, buildId: 'b1', rewardStyle: 'native', agentCommand: '{python} a.py --item {item_id}' }, undefined, known(first));
    expect(again.buildDir).toBe(first.buildDir);
    expect(await readFile(again.episodeFile, 'utf8')).toContain('--item');
    expect(await readdir(join(dir, 'tutorial'))).toEqual(['opencode_build_b1']);
  });

  it('asks before writing over a file the user changed, and writes it when told to', async () => {
    const first = await setUpProject(RESOURCES, { mode: 'scaffold', projectDir: dir, buildId: 'b1', rewardStyle: 'native', agentCommand: 'python a.py' });
    await writeFile(first.episodeFile, '# my own edits\n');
    const setup = { mode: 'scaffold' as const, projectDir: dir, buildId: 'b1', rewardStyle: 'native' as const, agentCommand: 'python b.py' };
    await expect(setUpProject(RESOURCES, setup, undefined, known(first))).rejects.toMatchObject({ code: 'WIZARD_FILE_EXISTS', message: expect.stringContaining('run_episode_once.py') });
    // Refused: nothing was written, the user's edit is still there.
    expect(await readFile(first.episodeFile, 'utf8')).toBe('# my own edits\n');
    await setUpProject(RESOURCES, { ...setup, overwrite: true }, undefined, known(first));
    expect(await readFile(first.episodeFile, 'utf8')).toContain('b.py');
  });
});
