// SwarmClient.agree_sync_weight() of the `ajet` stub (test/fixtures/ajet-stub, a TEST DOUBLE of AgentJet's client)
// against both servers playing the trainer: after its agreement the client waits to see ROLLING_POST or
// WEIGHT_SYNCING, looking every 5 s (reference §2). The stub scales its waits by AJET_STUB_TIME_SCALE, so the servers'
// default training step (8 s) is scaled by the same factor here; a step of 0 ms is the deadlock of issue 30.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DRY_RUN_TRAINING_STEP_MS } from '../../electron/shared/schemas-dryrun';
import { startDryRunServer } from '../../electron/services/dry-run/dry-run-server';
import { startFakeSwarmServer } from '../fixtures/fake-swarm/server.mjs';
import { AJET_STUB_DIR, systemPython } from '../support/python-env';
import { createEchoRelay } from './support/echo-relay';

const TIME_SCALE = 0.05;
/** The servers' default step as the scaled client experiences it. */
const SCALED_STEP_MS = DRY_RUN_TRAINING_STEP_MS * TIME_SCALE;

const AGREE = `
import json, os
from ajet.copilot.job import AgentJetJob
from ajet.schema.task import Task, WorkflowOutput
from ajet.tuner_lib.experimental.swarm_client import SwarmClient

client = SwarmClient(os.environ["SWARM_URL"])
job = AgentJetJob(model="/models/tiny", batch_size=1, num_repeat=1,
                  swarm_mode_sample_collection_method="rollout_until_any_client_agree_sync_weight")
client.auto_sync_train_config_and_start_engine(job)
episode_uuid, _ = client.begin_episode(discard_episode_timeout=60)
client.end_episode(Task(task_id="q1"), episode_uuid, WorkflowOutput(reward=1.0))
agreed = client.agree_sync_weight()
second_uuid, _ = client.begin_episode(discard_episode_timeout=60)
print(json.dumps({"agreed": agreed, "global_step": client.get_global_step()}))
`;

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ajet-stub-agree-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function runAgree(url: string, timeoutMs: number): Promise<{ code: number | string; stdout: string; stderr: string }> {
  const file = join(dir, 'agree.py');
  await writeFile(file, AGREE);
  const env = { ...process.env, PYTHONPATH: AJET_STUB_DIR, PYTHONDONTWRITEBYTECODE: '1', AJET_STUB_TIME_SCALE: String(TIME_SCALE), SWARM_URL: url };
  return new Promise((resolve) => {
    execFile(systemPython(), [file], { env, timeout: timeoutMs }, (error, stdout, stderr) =>
      resolve({ code: error ? (error.killed ? 'killed' : (error.code ?? 1)) : 0, stdout, stderr }),
    );
  });
}

describe('agree_sync_weight() of the ajet stub returns once the server shows its training step', () => {
  it('against the fake swarm server (its default step scaled like the client)', async () => {
    const fake = await startFakeSwarmServer({ port: 0, quiet: true, bootDelayMs: 200, weightSyncDelayMs: SCALED_STEP_MS });
    try {
      const run = await runAgree(fake.url, 30_000);
      expect(run.code, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '{}')).toEqual({ agreed: true, global_step: 2 });
    } finally {
      await fake.close();
    }
  }, 120_000);

  it('against the dry run (its default step scaled like the client)', async () => {
    const server = await startDryRunServer({ port: 0, trainer: 'auto', bootDelayMs: 200, trainingStepMs: SCALED_STEP_MS, relay: createEchoRelay() });
    try {
      const run = await runAgree(server.url, 30_000);
      expect(run.code, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '{}')).toEqual({ agreed: true, global_step: 2 });
    } finally {
      await server.close();
    }
  }, 120_000);

  it('a training step of 0 ms (issue 30) leaves the client waiting for ever: the check above can fail', async () => {
    const server = await startDryRunServer({ port: 0, trainer: 'auto', bootDelayMs: 200, trainingStepMs: 0, relay: createEchoRelay() });
    try {
      const run = await runAgree(server.url, 5000);
      expect(run.code).toBe('killed');
      expect(run.stdout).not.toContain('agreed');
      expect(server.snapshot().globalStep).toBe(2);
    } finally {
      await server.close();
    }
  }, 120_000);
});
