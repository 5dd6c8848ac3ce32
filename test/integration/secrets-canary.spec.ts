// The canary: one LLM key taken through whole flows with the real services, the real vault
// (passphrase) and the browser host — saved, tested against the fake LLM (a labelled TEST DOUBLE on
// 127.0.0.1), handed to a child process through its env (secret-env.ts), and to a container of the
// test bed's dockerd (fake swarm image) by a profile's `secretRefs`. Then every place it must NOT
// be is searched: every file of the data folder but vault.json (settings, profiles, servers, app
// log, stored container logs, run records), an exported log, every HTTP answer and WebSocket event
// the test saw, the error messages, and `/proc/*/cmdline` of every process. Zero hits is the pass.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { LABEL_PROFILE } from '../../electron/services/engines/container-engine';
import { llmSecretEnv } from '../../electron/services/secrets/secret-env';
import { VAULT_FILE } from '../../electron/services/secrets/secret-vault';
import type { Result } from '../../electron/shared/result';
import type { ProfileView } from '../../electron/shared/schemas-profiles';
import type { SecretMeta, SecretTestResult } from '../../electron/shared/schemas-vault';
import { startFakeLlm, type FakeLlm } from '../fixtures/fake-llm/fake-llm';
import { freePort } from '../support/helpers';
import { startTestApp, type TestApp } from '../support/test-app';
import { loadTestbed } from '../testbed/testbed';

const tb = loadTestbed();
const docker = new Docker({ socketPath: tb.dockerSocket });
/** The secret under test: an OpenAI-shaped key, so both the known-value and the shape rules would catch it. */
const CANARY = `sk-canary-${Date.now().toString(36)}-Zq8Lw3Rt5Yv7Xb9N`;
const PASSPHRASE = 'canary vault passphrase 1';

describe('a secret through whole flows never appears where it must not (canary)', () => {
  let app: TestApp;
  let llm: FakeLlm;
  let child: ChildProcess | null = null;
  const staticDir = mkdtempSync(join(tmpdir(), 'agentswarm-canary-static-'));
  const seen: string[] = [];
  const errors: string[] = [];
  let socket: WebSocket;

  /** A browser-host call as the UI makes it; the raw answer text is kept for the search. */
  async function invoke<T>(channel: string, payload: unknown): Promise<Result<T>> {
    const host = app.host!;
    const response = await fetch(`${host.url}api/invoke/${encodeURIComponent(channel)}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${host.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(payload),
    });
    const text = await response.text();
    seen.push(`HTTP ${channel} ${text}`);
    const result = JSON.parse(text) as Result<T>;
    if (!result.ok) errors.push(result.error.message);
    return result;
  }
  async function value<T>(channel: string, payload: unknown): Promise<T> {
    const result = await invoke<T>(channel, payload);
    if (!result.ok) throw new Error(`${channel} failed: ${result.error.code} ${result.error.message}`);
    return result.value;
  }

  beforeAll(async () => {
    llm = await startFakeLlm({ requireKey: CANARY });
    app = await startTestApp({ staticDir, monitorIntervalMs: 200 });
    socket = new WebSocket(`ws://127.0.0.1:${app.host!.port}/api/events?token=${app.host!.token}`);
    socket.on('message', (data: Buffer) => seen.push(`WS ${data.toString('utf8')}`));
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
  });

  afterAll(async () => {
    child?.kill();
    socket?.close();
    await app?.dispose();
    await llm?.close();
    rmSync(staticDir, { recursive: true, force: true });
  });

  it('saves, tests, hands to a child process and a container, and leaves no trace anywhere else', async () => {
    // 1. A passphrase vault and the LLM key in it.
    await value('vault:setup', { backend: 'passphrase', passphrase: PASSPHRASE });
    const meta = await value<SecretMeta>('secrets:save', { name: 'Canary LLM', kind: 'llm', value: CANARY, llm: { baseUrl: llm.url, model: 'fake-debug-model' } });

    // 2. Test it against the fake LLM: the key arrived as a bearer token (the fake checks it on chat, and records it).
    const tested = await value<SecretTestResult>('secrets:test', { id: meta.id });
    expect(tested).toMatchObject({ ok: true, status: 200, method: 'models' });
    expect(llm.calls.at(-1)?.headers.authorization).toBe(`Bearer ${CANARY}`);

    // 3. A child process that reads it from its env (never argv) and prints a hash of it.
    const env = await llmSecretEnv(app.services.vault!, meta.id);
    const script = "const h=require('crypto').createHash('sha256').update(process.env.OPENAI_API_KEY+'|'+process.env.API_KEY+'|'+process.env.OPENAI_BASE_URL).digest('hex');console.log(h);process.stdin.resume();";
    child = spawn(process.execPath, ['-e', script], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['pipe', 'pipe', 'inherit'] });
    const printed = await new Promise<string>((resolve) => child!.stdout!.once('data', (d: Buffer) => resolve(d.toString().trim())));
    expect(printed).toBe(createHash('sha256').update(`${CANARY}|${CANARY}|${llm.url}`).digest('hex'));
    expect(readFileSync(`/proc/${child.pid}/environ`, 'latin1').split('\0')).toContain(`OPENAI_API_KEY=${CANARY}`);

    // 4. A profile that takes SWANLAB_API_KEY from the vault by id; locked → a clear error naming it.
    // The same canary saved again as a SwanLab key: a profile's env takes env kinds only (an LLM key goes to its endpoint alone).
    const swan = await value<SecretMeta>('secrets:save', { name: 'Canary SwanLab', kind: 'swanlab', value: CANARY, llm: null });
    const port = await freePort();
    const added = await value<ProfileView>('profiles:add', {
      label: 'Canary swarm',
      engineId: 'local',
      image: tb.fakeSwarmImage,
      port,
      networkMode: 'host',
      gpus: { mode: 'none' },
      shm: { mode: 'size', gb: 1 },
      logDir: null,
      experimentsDir: null,
      checkpointsDir: null,
      secretEnv: ['SWANLAB_API_KEY'],
      secretRefs: { SWANLAB_API_KEY: swan.id },
    });
    const profileId = added.profile.id;
    expect(added.runtime.secretsKnown).toEqual(['SWANLAB_API_KEY']);
    await value('vault:lock', {});
    const locked = await invoke('profiles:start', { profileId, skipDoctor: true });
    expect(locked).toMatchObject({ ok: false, error: { code: 'VAULT_LOCKED', message: expect.stringContaining('SWANLAB_API_KEY') } });
    await value('vault:unlock', { passphrase: PASSPHRASE });
    const started = await value<ProfileView>('profiles:start', { profileId, skipDoctor: true });
    const containerId = started.runtime.container!.id;
    // It arrived: the engine's own inspect shows it in the container's env (and only there).
    const info = await docker.getContainer(containerId).inspect();
    expect(info.Config.Env).toContain(`SWANLAB_API_KEY=${CANARY}`);
    expect(JSON.stringify([info.Config.Cmd, info.Config.Entrypoint, info.Config.Labels, info.Path, info.Args])).not.toContain(CANARY);
    expect((await docker.listContainers({ filters: { label: [`${LABEL_PROFILE}=${profileId}`] } })).map((c) => c.Id)).toContain(containerId);

    // Some traffic that carries lists and logs: every secret's metadata, the profile views, the stored log and its export.
    await value('secrets:list', {});
    await value('profiles:list', {});
    await value('app:log', { lines: 500 }).catch(() => undefined);
    await expect.poll(async () => ((await invoke<{ total: number }>('logs:read', { engineId: 'local', containerId, from: 0, count: 500 })) as { ok: boolean }).ok, { timeout: 20_000 }).toBe(true);
    const exported = await value<{ path: string }>('logs:export', { engineId: 'local', containerId });
    await value('profiles:stop', { profileId });

    // 5. The search. Nothing of the canary anywhere but vault.json (where it is sealed) and the env it was given to.
    const hits: string[] = [];
    const check = (where: string, text: string) => {
      if (text.includes(CANARY)) hits.push(where);
    };
    for (const file of filesUnder(app.dataDir)) if (!file.endsWith(`/${VAULT_FILE}`)) check(file, readFileSync(file, 'latin1'));
    check(exported.path, readFileSync(exported.path, 'latin1'));
    for (const message of seen) check(message.slice(0, 80), message);
    for (const message of errors) check(`error: ${message}`, message);
    for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
      let cmdline = '';
      try {
        cmdline = readFileSync(`/proc/${pid}/cmdline`, 'latin1');
      } catch {
        continue; // gone, or not ours to read
      }
      check(`/proc/${pid}/cmdline`, cmdline);
    }
    expect(seen.some((m) => m.startsWith('WS '))).toBe(true);
    expect(readFileSync(join(app.dataDir, VAULT_FILE), 'latin1')).not.toContain(CANARY);
    expect(hits).toEqual([]);
  });
});

function filesUnder(dir: string): string[] {
  const files: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const stat = statSync(path);
    if (stat.isDirectory()) files.push(...filesUnder(path));
    else if (stat.isFile()) files.push(path);
  }
  return files;
}
