// A stored secret goes only where it was saved for (issue 29, item 1). A real capture server on
// 127.0.0.1 stands where a re-pointed URL, a dry-run form or a job's env would send a key; the key's
// own endpoint is the fake LLM (a labelled TEST DOUBLE). Every path is tried through the app's real
// services and contract-checked handlers, each refusal must be a clear error, and at the end the
// capture server must have received no byte of either canary.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../electron/shared/errors';
import { DryRunConfig } from '../../electron/shared/schemas-dryrun';
import { startFakeLlm, type FakeLlm } from '../fixtures/fake-llm/fake-llm';
import { startTestApp, type TestApp } from '../support/test-app';
import { JobEvents, makeProject, startRequest } from './support/jobs-fixtures';

const LLM_KEY = `sk-bindcanary-${Date.now().toString(36)}-Pq7Rw2Yt6Ux9Zm3K`;
const SSH_PASSWORD = `ssh-bindcanary-${Date.now().toString(36)}-pw`;

/** Every request it gets, raw (method, URL, headers, body): the place no canary may reach. */
interface Capture {
  url: string;
  origin: string;
  seen: string[];
  close(): Promise<void>;
}

async function startCapture(): Promise<Capture> {
  const seen: string[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      seen.push(`${req.method} ${req.url} ${JSON.stringify(req.headers)} ${Buffer.concat(chunks).toString('latin1')}`);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":[]}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    origin: `http://127.0.0.1:${port}`,
    seen,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The error a handler throws (the app's AppError), so each refusal's code and words can be checked. */
async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => null,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

/** Sends the key to every base URL its env names, as a careless agent library would. */
const JOB_SCRIPT = `
import json, os, urllib.request
key = os.environ.get("OPENAI_API_KEY", "")
sent = []
for name in ("OPENAI_BASE_URL", "BASE_URL", "OPENAI_API_BASE"):
    url = os.environ.get(name)
    if not url:
        continue
    req = urllib.request.Request(url.rstrip("/") + "/models", headers={"Authorization": "Bearer " + key})
    try:
        urllib.request.urlopen(req, timeout=5).read()
    except Exception as error:
        pass
    sent.append(name + "=" + url)
print("AGENTSWARM_RESULT " + json.dumps({"reward": 1.0, "sent": sent}))
`;

describe('a stored secret goes only to the endpoint and use it was saved for', () => {
  let app: TestApp;
  let llm: FakeLlm;
  let capture: Capture;
  let llmId: string;
  let sshId: string;

  beforeAll(async () => {
    llm = await startFakeLlm({ requireKey: LLM_KEY });
    capture = await startCapture();
    app = await startTestApp();
    await app.handlers['vault:setup']({ backend: 'session' });
    llmId = (await app.handlers['secrets:save']({ name: 'Bound LLM', kind: 'llm', value: LLM_KEY, llm: { baseUrl: llm.url, model: 'fake-debug-model' } })).id;
    sshId = (await app.handlers['secrets:save']({ name: 'Box password', kind: 'ssh-password', value: SSH_PASSWORD, llm: null })).id;
  });

  afterAll(async () => {
    await app?.dispose();
    await llm?.close();
    await capture?.close();
    // Nothing of either canary reached the capture server, whatever each test did.
    expect(capture.seen.filter((line) => line.includes(LLM_KEY) || line.includes(SSH_PASSWORD))).toEqual([]);
  });

  it('a re-pointed key is refused until typed again or confirmed for the new origin; Test still goes to its own endpoint', async () => {
    const moved = await refusal(app.handlers['secrets:save']({ id: llmId, name: 'Bound LLM', kind: 'llm', llm: { baseUrl: capture.url, model: 'fake-debug-model' } }));
    expect(moved.code).toBe('SECRET_ENDPOINT_MISMATCH');
    expect(moved.message).toContain(capture.origin);
    expect(moved.message).toContain(new URL(llm.url).origin);
    // A confirmation for another origin does not count.
    const wrongConfirm = await refusal(app.handlers['secrets:save']({ id: llmId, name: 'Bound LLM', kind: 'llm', llm: { baseUrl: capture.url, model: 'm' }, reuseKeyAt: 'http://127.0.0.1:1' }));
    expect(wrongConfirm.code).toBe('SECRET_ENDPOINT_MISMATCH');
    expect((await app.handlers['secrets:list']({})).find((s) => s.id === llmId)?.llm?.baseUrl).toBe(llm.url);

    const tested = await app.handlers['secrets:test']({ id: llmId });
    expect(tested).toMatchObject({ ok: true, status: 200 });
    expect(llm.calls.at(-1)?.headers.authorization).toBe(`Bearer ${LLM_KEY}`);
    // Same origin, another path: the key's endpoint is its origin, so that is an edit like any other.
    await app.handlers['secrets:save']({ id: llmId, name: 'Bound LLM', kind: 'llm', llm: { baseUrl: `${llm.url}/`, model: 'fake-debug-model' } });
    // A kind change without the value typed again is refused (an LLM key does not become an SSH password).
    expect((await refusal(app.handlers['secrets:save']({ id: llmId, name: 'Bound LLM', kind: 'ssh-password', llm: null }))).code).toBe('SECRET_WRONG_KIND');
    expect(capture.seen).toEqual([]);
  });

  it('the dry run refuses another URL for a stored key, and (like the wizard) a secret that is not an LLM key', async () => {
    const config = DryRunConfig.parse({ llm: { baseUrl: capture.url, model: 'm', secretId: llmId }, bootDelayMs: 0 });
    const elsewhere = await refusal(app.handlers['dryrun:start']({ config }));
    expect(elsewhere.code).toBe('SECRET_ENDPOINT_MISMATCH');
    expect(elsewhere.message).toContain('The dry run would send the key "Bound LLM"');
    const wrongKind = await refusal(app.handlers['dryrun:start']({ config: { ...config, llm: { ...config.llm, secretId: sshId } } }));
    expect(wrongKind.code).toBe('SECRET_WRONG_KIND');
    expect(wrongKind.message).toContain('"Box password" is an SSH password');
    // The wizard's debug LLM step takes only an LLM key too (its Test would send it as a bearer token).
    expect((await refusal(app.handlers['wizard:set-llm']({ secretId: sshId }))).code).toBe('SECRET_WRONG_KIND');
    expect(capture.seen).toEqual([]);
  });

  it('a job whose inherited env points elsewhere sends the key only to its own endpoint', async () => {
    const events = new JobEvents(app.hub);
    const before = process.env.OPENAI_API_BASE;
    // The app's own environment names another LLM (the older SDK's and LangChain's variable).
    process.env.OPENAI_API_BASE = capture.url;
    try {
      const project = await makeProject({ 'leak.py': JOB_SCRIPT });
      const job = await app.handlers['jobs:start'](startRequest({ cwd: project, script: 'leak.py', llmSecretId: llmId }));
      const ended = await events.ended(job.id);
      expect(ended.state).toBe('succeeded');
      expect(ended.result?.raw).toMatchObject({ sent: [`OPENAI_BASE_URL=${llm.url}/`, `BASE_URL=${llm.url}/`, `OPENAI_API_BASE=${llm.url}/`] });
    } finally {
      if (before === undefined) delete process.env.OPENAI_API_BASE;
      else process.env.OPENAI_API_BASE = before;
      events.unsubscribe();
    }
    expect(llm.calls.filter((call) => call.headers.authorization === `Bearer ${LLM_KEY}`).length).toBeGreaterThanOrEqual(3);
    expect(capture.seen).toEqual([]);
  });

  it('a profile takes only env kinds as secret env; the SSH servers only SSH kinds', async () => {
    const profile = await refusal(
      app.handlers['profiles:add']({
        label: 'Bind check',
        engineId: 'local',
        image: 'example.invalid/none:1',
        port: 18_999,
        networkMode: 'host',
        gpus: { mode: 'none' },
        shm: { mode: 'size', gb: 1 },
        logDir: null,
        experimentsDir: null,
        checkpointsDir: null,
        secretEnv: ['OPENAI_API_KEY'],
        secretRefs: { OPENAI_API_KEY: llmId },
      } as never),
    );
    expect(profile.code).toBe('SECRET_WRONG_KIND');
    expect(profile.message).toContain("Profile Bind check's OPENAI_API_KEY takes a SwanLab key or a secret env value");
    const server = await refusal(app.handlers['servers:add']({ label: 'Bind box', host: '127.0.0.1', port: 1, username: 'nobody', passwordSecretId: llmId } as never));
    expect(server.code).toBe('SECRET_WRONG_KIND');
    expect(server.message).toContain("Server Bind box's password takes an SSH password");
  });
});
