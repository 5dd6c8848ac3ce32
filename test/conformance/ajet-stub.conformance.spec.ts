// The `ajet` stub (test/fixtures/ajet-stub, a TEST DOUBLE of AgentJet's Python client) against the fake swarm
// server and against the dry run: a small program makes upstream's calls (reference §2) through a recording proxy,
// and the recorded requests must be upstream's sequence: sync → start → status polls until ROLLING → claim → chat
// through the episode's base URL → end, then claim → abort. Also the retry, expiry and validation rules.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startDryRunServer } from '../../electron/services/dry-run/dry-run-server';
import { startFakeSwarmServer } from '../fixtures/fake-swarm/server.mjs';
import { AJET_STUB_DIR, systemPython } from '../support/python-env';
import { createEchoRelay } from './support/echo-relay';
import { startRecordingProxy, type RecordedExchange, type RecordingProxy } from './support/recording-proxy';

const ONE_EPISODE = `
import json, os, sys, time, urllib.request
from ajet.copilot.job import AgentJetJob
from ajet.schema.task import Task, WorkflowOutput
from ajet.tuner_lib.experimental.swarm_client import SwarmClient

client = SwarmClient(os.environ["SWARM_URL"])
job = AgentJetJob(experiment_name="stub_conformance", n_gpu=1, model="/models/tiny", batch_size=1, num_repeat=1)
client.auto_sync_train_config_and_start_engine(job, force_restart=False)
episode_uuid, api = client.begin_episode(discard_episode_timeout=60)
request = urllib.request.Request(api.base_url + "/chat/completions",
    data=json.dumps({"model": "any", "messages": [{"role": "user", "content": "ping"}]}).encode(),
    headers={"Authorization": "Bearer " + api.api_key, "Content-Type": "application/json"})
answer = json.loads(urllib.request.urlopen(request, timeout=30).read())
client.end_episode(Task(task_id="q1"), episode_uuid, WorkflowOutput(reward=1.0, metadata={"note": "ok"}))
second_uuid, _ = client.begin_episode(discard_episode_timeout=60)
client.abort_episode(second_uuid)
deadline = time.time() + 20
while client.get_global_step() < 2 and time.time() < deadline:
    time.sleep(0.05)
print(json.dumps({"episode_uuid": episode_uuid, "second_uuid": second_uuid, "base_url": api.base_url,
                  "answer": answer["choices"][0]["message"]["content"], "global_step": client.get_global_step()}))
`;

interface PyRun {
  code: number;
  stdout: string;
  stderr: string;
  ms: number;
}

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ajet-stub-conf-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function runPython(source: string, env: Record<string, string>): Promise<PyRun> {
  const file = join(dir, `prog-${Date.now()}.py`);
  await writeFile(file, source);
  const started = Date.now();
  return new Promise((resolve) => {
    execFile(
      systemPython(),
      [file],
      { env: { ...process.env, PYTHONPATH: AJET_STUB_DIR, PYTHONDONTWRITEBYTECODE: '1', AJET_STUB_TIME_SCALE: '0.05', ...env }, timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr, ms: Date.now() - started }),
    );
  });
}

const lastJson = (stdout: string): Record<string, unknown> => JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as Record<string, unknown>;
const calls = (ex: RecordedExchange[]) => ex.filter((e) => e.path !== '/get_engine_status').map((e) => `${e.method} ${e.path}`);

const refusedClaim = (e: RecordedExchange) => e.path === '/claim_episode' && (e.response as { success?: boolean }).success === false;

function checkSequence(proxy: RecordingProxy, out: Record<string, unknown>): void {
  // A claim right after a step finished may be refused (weight sync, no episode registered yet): the client
  // retries it, so refused claims are checked for their cause and then left out of the sequence.
  const retries = proxy.exchanges.filter(refusedClaim);
  for (const e of retries) {
    expect(String((e.response as { fail_cause: string }).fail_cause)).toMatch(/No available episodes to claim\.|Engine is syncing weights|Engine is in post-rolling phase|Engine not ready/);
  }
  const ex = proxy.exchanges.filter((e) => !refusedClaim(e));
  expect(calls(ex)).toEqual([
    'POST /sync_train_config',
    'POST /start_engine',
    'POST /claim_episode',
    'POST /v1/chat/completions',
    'POST /end_episode',
    'POST /claim_episode',
    'POST /abort_episode',
  ]);
  expect(ex.every((e) => e.httpVersion === '1.1')).toBe(true);
  const index = (path: string, from = 0) => ex.findIndex((e, i) => i >= from && e.path === path);
  const sync = ex[index('/sync_train_config')]!;
  const start = index('/start_engine');
  const claim = index('/claim_episode');
  // The status was polled (OFFLINE) before syncing, and ROLLING was seen between start and the first claim.
  expect(ex.slice(0, index('/sync_train_config')).some((e) => e.path === '/get_engine_status' && (e.response as { engine_status: string }).engine_status === 'ENGINE.OFFLINE')).toBe(true);
  expect(ex.slice(start, claim).some((e) => e.path === '/get_engine_status' && (e.response as { engine_status: string }).engine_status === 'ENGINE.ROLLING')).toBe(true);
  const yaml = (sync.body as { yaml_as_string: string }).yaml_as_string;
  expect(yaml).toMatch(/^ajet:\n/);
  expect(yaml).toContain('  experiment_name: stub_conformance\n');
  expect(yaml).toContain('  model:\n    path: /models/tiny\n');
  expect(yaml).toMatch(/\n {4}train_batch_size: 1\n/);
  expect(yaml).toMatch(/\n {4}num_repeat: 1\n/);
  expect(ex[start]!.body).toEqual({});
  const claimBody = ex[claim]!.body as Record<string, unknown>;
  expect(claimBody).toEqual({ client_uuid: expect.stringMatching(/^[0-9a-f-]{36}$/), episode_type: 'train', discard_episode_timeout: 60, throttle_policy: null });
  // The chat call went to the client's own server URL (the proxy), not to the host the server registered.
  expect(String(out.base_url)).toBe(`${proxy.url}/v1`);
  const chat = ex[index('/v1/chat/completions')]!;
  expect(chat.headers.authorization).toMatch(/^Bearer sk-ajet-/);
  expect(chat.status).toBe(200);
  const end = ex[index('/end_episode')]!;
  expect(end.body).toEqual({
    client_uuid: claimBody.client_uuid,
    episode_uuid: out.episode_uuid,
    task_id: 'q1',
    declare_client_active: true,
    workflow_output: { reward: 1.0, is_success: null, metadata: { note: 'ok', task_id: 'q1' }, log_metrics: {} },
  });
  expect(end.status).toBe(200);
  const abort = ex[index('/abort_episode')]!;
  expect(abort.body).toEqual({
    client_uuid: claimBody.client_uuid,
    episode_uuid: out.second_uuid,
    task_id: '',
    declare_client_active: true,
    workflow_output: { reward: 0.0, is_success: null, metadata: {}, log_metrics: {} },
  });
  expect(out.global_step).toBeGreaterThanOrEqual(2);
}

describe('ajet stub (TEST DOUBLE) speaks upstream SwarmClient sequence', () => {
  it('against the fake swarm server', async () => {
    const fake = await startFakeSwarmServer({ port: 0, quiet: true, bootDelayMs: 300, weightSyncDelayMs: 100, rollingPostMaxMs: 200 });
    const proxy = await startRecordingProxy(fake.url);
    try {
      const run = await runPython(ONE_EPISODE, { SWARM_URL: proxy.url });
      expect(run.stderr).toContain('Claimed episode');
      expect(run.code, run.stderr).toBe(0);
      const out = lastJson(run.stdout);
      checkSequence(proxy, out);
      expect(fake.state.statusHistory.slice(0, 3)).toEqual(['ENGINE.OFFLINE', 'ENGINE.BOOTING', 'ENGINE.ROLLING']);
      // AJET_STUB_TIME_SCALE=0.05 shrinks the 5 s status waits: the whole run is a few seconds.
      expect(run.ms).toBeLessThan(15_000);
    } finally {
      await proxy.close();
      await fake.close();
    }
  }, 60_000);

  it('against the dry run (product code), chat relayed to an echo relay', async () => {
    const relay = createEchoRelay();
    const server = await startDryRunServer({ port: 0, trainer: 'auto', bootDelayMs: 300, trainingStepMs: 100, relay });
    const proxy = await startRecordingProxy(server.url);
    try {
      const run = await runPython(ONE_EPISODE, { SWARM_URL: proxy.url });
      expect(run.code, run.stderr).toBe(0);
      const out = lastJson(run.stdout);
      checkSequence(proxy, out);
      expect(String(out.answer)).toContain('ping');
      expect(relay.calls).toHaveLength(1);
      expect(relay.calls[0]!.episode.episodeUuid).toBe(out.episode_uuid);
    } finally {
      await proxy.close();
      await server.close();
    }
  }, 60_000);

  it('retries a claim every 2 s (scaled) on "No available episodes" and gets the episode once it is given back', async () => {
    const fake = await startFakeSwarmServer({ port: 0, quiet: true, bootDelayMs: 200 });
    const proxy = await startRecordingProxy(fake.url);
    try {
      const run = await runPython(
        `
import os, threading, time
from ajet.copilot.job import AgentJetJob
from ajet.tuner_lib.experimental.swarm_client import SwarmClient
c = SwarmClient(os.environ["SWARM_URL"])
c.auto_sync_train_config_and_start_engine(AgentJetJob(batch_size=1, num_repeat=1, model="/m"))
first, _ = c.begin_episode(discard_episode_timeout=60)
threading.Timer(0.6, lambda: c.abort_episode(first)).start()
second, _ = c.begin_episode(discard_episode_timeout=60)
print(first == second)
`,
        { SWARM_URL: proxy.url },
      );
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout.trim()).toBe('True');
      const claims = proxy.exchanges.filter((e) => e.path === '/claim_episode');
      const refused = claims.filter((e) => String((e.response as { fail_cause: string }).fail_cause).includes('No available episodes to claim.'));
      expect(refused.length).toBeGreaterThanOrEqual(2);
      // 2 s × 0.05 = 0.1 s between retries (not 15 s, not a busy loop).
      const gaps = refused.slice(1).map((e, i) => e.at - refused[i]!.at);
      for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(80);
      for (const gap of gaps) expect(gap).toBeLessThan(1500);
    } finally {
      await proxy.close();
      await fake.close();
    }
  }, 60_000);

  it('turns end_episode into abort_episode once the local expiry (8 × discard_episode_timeout) has passed', async () => {
    const fake = await startFakeSwarmServer({ port: 0, quiet: true, bootDelayMs: 200 });
    const proxy = await startRecordingProxy(fake.url);
    try {
      const run = await runPython(
        `
import os, time
from ajet.copilot.job import AgentJetJob
from ajet.schema.task import Task, WorkflowOutput
from ajet.tuner_lib.experimental.swarm_client import SwarmClient
c = SwarmClient(os.environ["SWARM_URL"])
c.auto_sync_train_config_and_start_engine(AgentJetJob(batch_size=1, num_repeat=1, model="/m"))
uuid_, _ = c.begin_episode(discard_episode_timeout=0.05)
time.sleep(0.6)
c.end_episode(Task(task_id="t"), uuid_, WorkflowOutput(reward=1.0))
`,
        { SWARM_URL: proxy.url },
      );
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toContain('has expired');
      expect(calls(proxy.exchanges).slice(-2)).toEqual(['POST /claim_episode', 'POST /abort_episode']);
    } finally {
      await proxy.close();
      await fake.close();
    }
  }, 60_000);

  it('gives up with "Unable to connect to swarm server." after one retry when nothing listens', async () => {
    const run = await runPython(
      `
from ajet.copilot.job import AgentJetJob
from ajet.tuner_lib.experimental.swarm_client import SwarmClient
c = SwarmClient("http://127.0.0.1:9")
try:
    c.auto_sync_train_config_and_start_engine(AgentJetJob())
except RuntimeError as e:
    print("raised:", e)
`,
      {},
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe('raised: Unable to connect to swarm server.');
  }, 60_000);

  it('validates AgentJetJob like upstream (LoRA needs safetensors + layered_summon + lr > 1e-5; lengths all or none)', async () => {
    const run = await runPython(
      `
from ajet.copilot.job import AgentJetJob
def attempt(**kw):
    try:
        AgentJetJob(**kw)
        return "ok"
    except (ValueError, AssertionError) as e:
        return type(e).__name__ + ": " + str(e)
print(attempt(lora_rank=8))
print(attempt(lora_rank=8, lora_load_format="safetensors"))
print(attempt(lora_rank=8, lora_load_format="safetensors", layered_summon=True))
print(attempt(lora_rank=8, lora_load_format="safetensors", layered_summon=True, lr=3e-5))
print(attempt(max_prompt_length=100))
print(attempt(max_prompt_length=100, max_response_length=200, max_model_len=250, max_response_length_in_one_turn=50))
job = AgentJetJob(lora_rank=8, lora_alpha=32, lora_target_modules="q_proj", lora_load_format="safetensors", layered_summon=True, lr=3e-5)
print(job.config.to_dict()["ajet"]["lora"], job.config.ajet.trainer_common.optim.lr)
`,
      {},
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim().split('\n')).toEqual([
      "ValueError: When lora_rank > 0, lora_load_format must be 'safetensors', got 'auto'",
      'ValueError: When lora_rank > 0, layered_summon must be True',
      'ValueError: lr should usually be greater than 1e-5 for lora training, got 1e-06',
      'ok',
      'ValueError: (`max_prompt_length`, `max_response_length`, `max_model_len`, `max_response_length_in_one_turn`) must all be None or all be non-None',
      'AssertionError: illegal token length',
      "{'lora_rank': 8, 'lora_alpha': 32, 'target_modules': 'q_proj', 'load_format': 'safetensors', 'layered_summon': True} 3e-05",
    ]);
  });
});
