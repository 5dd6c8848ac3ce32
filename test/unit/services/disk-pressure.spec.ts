import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JobHistory } from '../../../electron/services/jobs/job-history';
import { JobRunner } from '../../../electron/services/jobs/job-runner';
import { SecretVault } from '../../../electron/services/secrets/secret-vault';
import { SettingsService } from '../../../electron/services/settings/settings-service';
import { probeWritable, writeFileAtomic } from '../../../electron/services/util/atomic-file';
import { JobStartRequest, type JobViewData } from '../../../electron/shared/schemas-jobs';
import { poll } from '../../support/helpers';
import { MemoryVault } from '../../support/memory-vault';
import { canMount, mountSmallDisk, type SmallDisk } from '../../support/tmpfs';
import { canary, FAST_SCRYPT, RecordingLogger } from './secrets/vault-fixtures';

/** Files a failed write must not leave behind. */
async function temps(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true })).filter((name) => name.endsWith('.tmp'));
}

// A real 64 KiB tmpfs, filled or remounted read-only (root ignores file modes, so chmod would prove nothing).
describe.skipIf(!canMount())('a full disk and a read-only data folder (real tmpfs)', { timeout: 60_000 }, () => {
  let disk: SmallDisk;
  beforeEach(() => {
    disk = mountSmallDisk(64);
  });
  afterEach(() => {
    disk.unmount();
  });

  it('atomic writes leave no temp file when the disk is full or read-only, and the old file intact', async () => {
    const file = join(disk.dir, 'state.json');
    await writeFileAtomic(file, '{"old":true}\n');
    disk.fill();
    await expect(writeFileAtomic(file, 'x'.repeat(32 * 1024))).rejects.toMatchObject({ code: 'ENOSPC' });
    for (let i = 0; i < 7; i += 1) await writeFileAtomic(file, `{"n":${i}}`).catch(() => undefined);
    expect(await temps(disk.dir)).toEqual([]);
    expect(await probeWritable(disk.dir)).toBe('ENOSPC');
    disk.free();
    disk.readOnly();
    await expect(writeFileAtomic(file, '{}')).rejects.toMatchObject({ code: 'EROFS' });
    expect(await probeWritable(disk.dir)).toBe('EROFS');
    disk.writable();
    expect(await probeWritable(disk.dir)).toBeNull();
    expect(await temps(disk.dir)).toEqual([]);
  });

  it('settings:status tests writability by writing; a save names the folder and the cause; fixed, it saves again', async () => {
    const emitted: unknown[] = [];
    const settings = new SettingsService(disk.dir, { emit: (channel: string, payload: unknown) => emitted.push([channel, payload]) } as never);
    await settings.load();
    expect(await settings.checkStatus()).toMatchObject({ problem: null, writable: true });

    disk.readOnly();
    const readOnly = await settings.checkStatus();
    expect(readOnly).toMatchObject({ problem: 'not-writable', writable: false, detail: expect.stringMatching(/^EROFS: the folder is on a read-only file system/) });
    expect(emitted).toContainEqual(['settings:status-changed', readOnly]);
    await expect(settings.update({ language: 'zh-CN' })).rejects.toMatchObject({
      code: 'SETTINGS_NOT_SAVED',
      message: expect.stringContaining(`in ${disk.dir} (EROFS: the folder is on a read-only file system`),
    });
    expect(settings.get().language).not.toBe('zh-CN');

    disk.writable();
    disk.fill();
    await expect(settings.update({ language: 'zh-CN' })).rejects.toMatchObject({ code: 'SETTINGS_NOT_SAVED', message: expect.stringContaining('ENOSPC: the disk is full') });
    expect(settings.status()).toMatchObject({ problem: 'not-writable', detail: expect.stringContaining('ENOSPC') });
    expect(await temps(disk.dir)).toEqual([]);

    disk.free();
    expect((await settings.update({ language: 'zh-CN' })).language).toBe('zh-CN');
    expect(settings.status()).toMatchObject({ problem: null, writable: true });
    // A fresh start on a read-only folder says so at load too.
    disk.readOnly();
    const again = new SettingsService(disk.dir);
    await again.load();
    expect(again.status()).toMatchObject({ problem: 'not-writable', writable: false });
    expect(again.get().language).toBe('zh-CN');
    disk.writable();
  });

  it('a vault write that fails is VAULT_NOT_SAVED naming the folder and the cause; nothing changed, no temp file', async () => {
    const logger = new RecordingLogger();
    const vault = new SecretVault({ dataDir: disk.dir, host: 'browser', logger, scrypt: FAST_SCRYPT });
    await vault.load();
    await vault.setup({ backend: 'passphrase', passphrase: 'disk pressure passphrase' });
    const kept = canary('kept');
    await vault.save({ id: 'kept', name: 'Kept', kind: 'env', value: kept, llm: null });
    const value = canary('lost');

    disk.fill();
    const full = vault.save({ id: 'new', name: 'New', kind: 'env', value, llm: null });
    await expect(full).rejects.toMatchObject({ code: 'VAULT_NOT_SAVED', message: expect.stringContaining(`in ${disk.dir} (ENOSPC: the disk is full`) });
    await expect(full).rejects.not.toMatchObject({ message: expect.stringContaining(value) });
    expect(vault.list().map((s) => s.id)).toEqual(['kept']);
    expect(await temps(disk.dir)).toEqual([]);

    disk.free();
    disk.readOnly();
    await expect(vault.remove('kept')).rejects.toMatchObject({ code: 'VAULT_NOT_SAVED', message: expect.stringContaining('EROFS: the folder is on a read-only file system') });
    expect(await vault.reveal('kept')).toBe(kept);
    disk.writable();
    await vault.save({ id: 'new', name: 'New', kind: 'env', value, llm: null });
    expect(vault.list().map((s) => s.id)).toEqual(['kept', 'new']);
    expect(logger.lines.join('\n')).not.toContain(value);
    vault.close();
  });

  it('a run whose record cannot be written says so and stays in memory; written once the disk has room', async () => {
    const project = await mkdtemp(join(tmpdir(), 'agentswarm-diskjob-'));
    try {
      await writeFile(join(project, 'ok.py'), 'print("AGENTSWARM_RESULT {\\"reward\\": 1}")\n');
      const views: JobViewData[] = [];
      const dir = join(disk.dir, 'jobs');
      const runner = new JobRunner({
        dir,
        events: { emit: (channel: string, payload: unknown) => channel === 'jobs:changed' && views.push(payload as JobViewData) } as never,
        vault: new MemoryVault(),
        logger: new RecordingLogger(),
        swarmUrl: () => null,
        historyRetryMs: 200,
      });
      await runner.load();
      disk.fill();
      const job = await runner.start(JobStartRequest.parse({ kind: 'script', cwd: project, script: 'ok.py', python: '/usr/bin/python3' }));
      expect((await runner.waitForEnd(job.id)).state).toBe('succeeded');
      const unsaved = await poll('notSaved', 10_000, async () => runner.get(job.id).notSaved ?? undefined);
      expect(unsaved).toEqual({ code: 'ENOSPC', file: join(dir, 'history.json') });
      // The screen heard it: a snapshot that says succeeded AND not saved.
      await poll('event', 5000, async () => views.find((v) => v.id === job.id && v.state === 'succeeded' && v.notSaved?.code === 'ENOSPC'));
      // The history is written again every 200 ms while the disk is full, each try with a temp file of its own that
      // it removes when it fails: between two tries none is left (were they kept, they would pile up and never clear).
      await poll('no temp file left between two tries', 5000, async () => ((await temps(disk.dir)).length === 0 ? true : undefined));
      expect(runner.list().map((v) => v.id)).toContain(job.id);

      disk.free();
      await poll('saved', 10_000, async () => (runner.get(job.id).notSaved === null ? true : undefined));
      expect(views.at(-1)).toMatchObject({ id: job.id, state: 'succeeded', notSaved: null });
      const reloaded = await new JobHistory(dir).load();
      expect(reloaded.records.map((r) => [r.view.id, r.view.state])).toEqual([[job.id, 'succeeded']]);
      await runner.dispose();
    } finally {
      await rm(project, { recursive: true, force: true });
    }
  });
});
