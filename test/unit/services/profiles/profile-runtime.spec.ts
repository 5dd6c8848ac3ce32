import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AppError } from '../../../../electron/shared/errors';
import type { DoctorReport, ProfileInputRaw } from '../../../../electron/shared/schemas-profiles';
import { ProfileInput } from '../../../../electron/shared/schemas-profiles';
import type { ContainerEngine, ContainerSpec, ContainerSummary, EngineHost } from '../../../../electron/services/engines/container-engine';
import { EngineRegistry } from '../../../../electron/services/engines/engine-registry';
import { EventHub } from '../../../../electron/services/events';
import { ProfileRuntime } from '../../../../electron/services/profiles/profile-runtime';
import { ProfileStore } from '../../../../electron/services/profiles/profile-store';
import { SwarmContainers } from '../../../../electron/services/swarm/swarm-containers';
import { SwarmMonitor } from '../../../../electron/services/swarm/swarm-monitor';
import { MemoryVault } from '../../../support/memory-vault';

const CANARY = 'secret-canary-31c4f0';

/**
 * TEST DOUBLE: an in-memory engine (labels filtered like Docker's) for what real Docker cannot be
 * made to do on demand: a doctor that fails, two Starts racing, an engine without a host. The real
 * thing is covered by test/integration/swarm-profiles.spec.ts.
 */
class MemoryEngine {
  readonly summary = { id: 'local', kind: 'local-docker' as const, label: 'Memory', endpoint: 'memory://' };
  readonly wording = { product: 'Memory', pullImage: () => '', unreachable: () => '', permissionDenied: () => '', noGpuRuntime: () => '' };
  readonly containers = new Map<string, ContainerSummary>();
  readonly specs: ContainerSpec[] = [];
  host: EngineHost | null = null;
  createDelay: Promise<void> = Promise.resolve();
  private next = 0;

  async health() {
    return { id: 'local', reachable: true, version: '0', apiVersion: '1.41', product: 'docker' as const, rootless: false, error: null };
  }
  async listContainers(labels: Record<string, string>) {
    return [...this.containers.values()].filter((c) => Object.entries(labels).every(([k, v]) => c.labels[k] === v));
  }
  async inspectContainer(id: string) {
    const c = this.containers.get(id);
    if (!c) throw new AppError('CONTAINER_NOT_FOUND', 'gone');
    return { ...c };
  }
  async imageExists() {
    return true;
  }
  async createContainer(spec: ContainerSpec) {
    await this.createDelay;
    this.specs.push(spec);
    const id = (++this.next).toString(16).padStart(12, '0');
    const createdAt = new Date(this.next * 1000).toISOString();
    this.containers.set(id, { id, name: spec.name, image: spec.image, state: 'created', statusText: '', labels: spec.labels, createdAt, startedAt: null, finishedAt: null, exitCode: null, oomKilled: false });
    return id;
  }
  async startContainer(id: string) {
    this.containers.get(id)!.state = 'running';
  }
  async stopContainer(id: string) {
    this.containers.get(id)!.state = 'exited';
  }
  async removeContainer(id: string) {
    this.containers.delete(id);
  }
  async isHostPortFree() {
    return true;
  }
  async urlForHostPort(port: number) {
    return `http://127.0.0.1:${port}`;
  }
}

function report(status: 'pass' | 'fail'): DoctorReport {
  return {
    profileId: 'p',
    engineId: 'local',
    ranAt: new Date().toISOString(),
    durationMs: 1,
    verdict: status,
    checks: [
      { id: 'engine-reachable', status: 'pass', detail: 'Docker 27 answers.', fix: null, command: null, commandWhere: null },
      { id: 'model-dir', status, detail: 'No config.json in /data/m.', fix: 'Point it at the model folder.', command: null, commandWhere: null },
    ],
  };
}

const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});

function setup(doctor: 'pass' | 'fail' = 'pass', vault = new MemoryVault()) {
  const dataDir = mkdtempSync(join(tmpdir(), 'profiles-unit-'));
  const engine = new MemoryEngine();
  const engines = new EngineRegistry();
  engines.add(engine as unknown as ContainerEngine);
  const hub = new EventHub();
  const events: string[] = [];
  hub.subscribe((channel, payload) => events.push(`${channel} ${JSON.stringify(payload)}`));
  const logged: string[] = [];
  const logger = { warn: (m: string, meta?: unknown) => logged.push(`${m} ${JSON.stringify(meta)}`) };
  const monitor = new SwarmMonitor({ events: hub, intervalMs: 60_000, isContainerRunning: async () => true });
  const containers = new SwarmContainers({ engines, monitor, events: hub, appVersion: 'test' });
  const store = new ProfileStore(dataDir);
  const doctorRuns: string[] = [];
  const runtime = new ProfileRuntime({
    store,
    engines,
    containers,
    // TEST DOUBLE of the doctor module: a fixed report, to test what Start does with it.
    runDoctor: async (id) => {
      doctorRuns.push(id);
      return report(doctor);
    },
    events: hub,
    logger,
    appVersion: 'test',
    vault,
  });
  cleanups.push(() => {
    monitor.dispose();
    runtime.dispose();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const add = (extra: Partial<ProfileInputRaw> = {}) =>
    runtime.add(ProfileInput.parse({ label: 'P', engineId: 'local', image: 'x/y:1', port: 12000, networkMode: 'host', gpus: { mode: 'none' }, ...extra }));
  const start = (profileId: string, extra: Partial<{ secrets: Record<string, string>; skipDoctor: boolean; replaceDrifted: boolean }> = {}) =>
    runtime.start({ profileId, secrets: {}, skipDoctor: false, replaceDrifted: false, ...extra });
  return { engine, runtime, store, events, logged, doctorRuns, add, start, vault };
}

describe('ProfileRuntime', () => {
  it('runs the doctor before Start and refuses with DOCTOR_FAILED naming the failing checks; "Start anyway" skips it', async () => {
    const { engine, add, start, doctorRuns } = setup('fail');
    const { profile } = await add();
    await expect(start(profile.id)).rejects.toMatchObject({ code: 'DOCTOR_FAILED', message: expect.stringContaining('model-dir (No config.json in /data/m.)') });
    expect(doctorRuns).toEqual([profile.id]);
    expect(engine.containers.size).toBe(0);
    await expect(start(profile.id, { skipDoctor: true })).resolves.toMatchObject({ runtime: { container: { state: 'running' } } });
    expect(doctorRuns).toHaveLength(1);
  });

  it('starts after a passing doctor; a failing doctor leaves a drifted server running', async () => {
    const passing = setup('pass');
    const { profile } = await passing.add();
    await expect(passing.start(profile.id)).resolves.toMatchObject({ runtime: { container: { state: 'running' }, drifted: false } });

    const failing = setup('fail');
    const p = (await failing.add()).profile;
    const first = await failing.start(p.id, { skipDoctor: true });
    await failing.store.update(p.id, ProfileInput.parse({ ...p, port: 12001 }));
    await expect(failing.start(p.id, { replaceDrifted: true })).rejects.toMatchObject({ code: 'DOCTOR_FAILED' });
    expect(failing.engine.containers.get(first.runtime.container!.id)?.state).toBe('running');
    // Restart too: the doctor runs while the server still runs, so a failure leaves it running.
    await expect(failing.runtime.restart({ profileId: p.id, secrets: {}, skipDoctor: false, replaceDrifted: false })).rejects.toMatchObject({ code: 'DOCTOR_FAILED' });
    expect(failing.engine.containers.get(first.runtime.container!.id)?.state).toBe('running');
    expect(failing.doctorRuns).toHaveLength(2);
  });

  it('refuses a second Start of the same profile while the first is still creating', async () => {
    const { engine, add, start } = setup();
    const { profile } = await add();
    let release!: () => void;
    engine.createDelay = new Promise((resolve) => (release = resolve));
    const first = start(profile.id, { skipDoctor: true });
    await expect(start(profile.id, { skipDoctor: true })).rejects.toMatchObject({ code: 'CONTAINER_CONFLICT' });
    release();
    await first;
    expect(engine.containers.size).toBe(1);
  });

  it('removes an exited container of the profile before it starts a new one (never two)', async () => {
    const { engine, add, start, runtime } = setup();
    const { profile } = await add();
    const first = await start(profile.id, { skipDoctor: true });
    await runtime.stop(profile.id);
    const second = await start(profile.id, { skipDoctor: true });
    expect(second.runtime.container!.id).not.toBe(first.runtime.container!.id);
    expect([...engine.containers.keys()]).toEqual([second.runtime.container!.id]);
  });

  it('says it cannot expand ~/ on an engine without a host, and creates nothing', async () => {
    const { engine, add, start } = setup();
    const { profile } = await add({ logDir: '~/log' });
    await expect(start(profile.id, { skipDoctor: true })).rejects.toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringContaining('~/') });
    expect(engine.containers.size).toBe(0);
  });

  it('keeps secret values out of views, events, errors, log entries and the command (canary)', async () => {
    const { engine, add, start, runtime, events, logged } = setup();
    const { profile } = await add({ secretEnv: ['SWANLAB_API_KEY', 'OTHER_TOKEN'] });
    const missing = await start(profile.id, { skipDoctor: true, secrets: { SWANLAB_API_KEY: CANARY } }).catch((e: AppError) => e);
    expect(missing).toMatchObject({ code: 'SECRET_MISSING', message: expect.stringContaining('OTHER_TOKEN') });
    expect(String((missing as AppError).message)).not.toContain(CANARY);

    const view = await start(profile.id, { skipDoctor: true, secrets: { OTHER_TOKEN: `${CANARY}-2` } });
    // The first value was remembered although that Start failed for the other name.
    expect(engine.specs[0]?.env).toMatchObject({ SWANLAB_API_KEY: CANARY, OTHER_TOKEN: `${CANARY}-2` });
    expect(view.runtime.secretsKnown).toEqual(['SWANLAB_API_KEY', 'OTHER_TOKEN']);
    const command = await runtime.command(profile.id);
    runtime.publish();
    await runtime.settled();
    const everything = [JSON.stringify(view), JSON.stringify(await runtime.list()), JSON.stringify(command), ...events, ...logged].join('\n');
    expect(events.some((e) => e.startsWith('profiles:changed'))).toBe(true);
    expect(everything).not.toContain(CANARY);
  });

  it('takes a secret env value from the vault by reference: typed value first, then the vault, then the run\'s memory', async () => {
    const { engine, add, start, vault, runtime } = setup();
    await vault.save({ id: 'swan', name: 'SwanLab', kind: 'swanlab', value: `${CANARY}-vault`, llm: null });
    const { profile } = await add({ secretEnv: ['SWANLAB_API_KEY', 'OTHER_TOKEN'], secretRefs: { SWANLAB_API_KEY: 'swan', NOT_SECRET_ENV: 'swan' } });
    // The referenced name counts as known (the start dialog does not ask for it); a stray reference is ignored.
    expect((await runtime.view(profile.id)).runtime.secretsKnown).toEqual(['SWANLAB_API_KEY']);
    await start(profile.id, { skipDoctor: true, secrets: { OTHER_TOKEN: `${CANARY}-typed` } });
    expect(engine.specs[0]?.env).toMatchObject({ SWANLAB_API_KEY: `${CANARY}-vault`, OTHER_TOKEN: `${CANARY}-typed` });
    expect(engine.specs[0]?.env).not.toHaveProperty('NOT_SECRET_ENV');
    // A value typed at Start wins over the vault's.
    await runtime.stop(profile.id);
    await start(profile.id, { skipDoctor: true, secrets: { SWANLAB_API_KEY: `${CANARY}-override` } });
    expect(engine.specs[1]?.env).toMatchObject({ SWANLAB_API_KEY: `${CANARY}-override`, OTHER_TOKEN: `${CANARY}-typed` });
  });

  it('names the variable when the vault is locked or the referenced secret is gone, and creates nothing', async () => {
    const { engine, add, start, vault } = setup();
    const { profile } = await add({ secretEnv: ['SWANLAB_API_KEY'], secretRefs: { SWANLAB_API_KEY: 'swan' } });
    const gone = await start(profile.id, { skipDoctor: true }).catch((e: AppError) => e);
    expect(gone).toMatchObject({ code: 'SECRET_NOT_FOUND', message: expect.stringMatching(/"P" takes SWANLAB_API_KEY from the vault secret "swan", which is not in the vault/) });
    await vault.save({ id: 'swan', name: 'SwanLab', kind: 'swanlab', value: `${CANARY}-vault`, llm: null });
    vault.locked = true;
    const locked = await start(profile.id, { skipDoctor: true }).catch((e: AppError) => e);
    expect(locked).toMatchObject({ code: 'VAULT_LOCKED', message: expect.stringContaining('SWANLAB_API_KEY') });
    expect(String((locked as AppError).message)).toContain('Unlock it');
    expect(engine.specs).toEqual([]);
  });
});
