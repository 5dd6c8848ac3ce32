// What upstream's /start_engine refuses in the synced YAML (swarm_server.py start_engine → config_utils.py at
// c68c154): keys it reads with [...] raise KeyError, and the route answers HTTP 200 {"success":false,"error":"'key'"}
// with the status left in ENGINE.BOOTING until /stop_engine (reference appendix points 5, 6, 18; issue 30 §2:
// `{"success":false,"error":"'defaults'"}` was seen from upstream's server). sync_train_config itself accepts anything.
import { describe, expect, it } from 'vitest';
import type { PartContext } from '../swarm-conformance';
import { UPSTREAM_JOB_TAIL, upstreamJob } from '../../support/job-yaml';
import { STATUS, type Swarm } from '../support/swarm';

const AJET = '  model:\n    path: /models/m\n  data:\n    train_batch_size: 1\n  rollout:\n    num_repeat: 1\n';
const INTERCHANGE = '  interchange_server:\n    interchange_method: ipc\n';
const DEFAULTS = 'defaults:\n- verl_default\n- ajet_default\n- _self_\n';
const HYDRA = 'hydra:\n  searchpath:\n  - file://ajet/default_config\n';

async function startWith(s: Swarm, yaml: string) {
  expect((await s.post('/sync_train_config', { yaml_as_string: yaml })).json).toEqual({ success: true });
  return s.post('/start_engine', {});
}

/** The refused start: 200 {success:false, error}, then BOOTING for good (the suite moves nothing), until stop_engine. */
async function expectRefused(s: Swarm, yaml: string, error: string): Promise<void> {
  const r = await startWith(s, yaml);
  expect(r.status).toBe(200);
  expect(r.json).toEqual({ success: false, error });
  const status = await s.engineStatus();
  expect(status.engine_status).toBe(STATUS.BOOTING);
  expect((await s.pool()).booting_start_time).toEqual(expect.any(Number));
}

export function startConfigPart(ctx: PartContext): void {
  describe('start_engine refuses the YAMLs upstream refuses, and stays BOOTING', () => {
    it('a YAML without defaults: answers {"success":false,"error":"\'defaults\'"} and stays BOOTING until stop_engine', async () => {
      const s = ctx.swarm();
      await expectRefused(s, `ajet:\n${AJET}${INTERCHANGE}${HYDRA}`, "'defaults'");
      // Still BOOTING a moment later, and sync/start are refused as for any started engine.
      await new Promise((ok) => setTimeout(ok, 300));
      expect((await s.engineStatus()).engine_status).toBe(STATUS.BOOTING);
      expect((await s.post('/start_engine', {})).status).toBe(400);
      expect((await s.post('/stop_engine', {})).json).toEqual({ success: true, failure_reason: '' });
      expect((await s.engineStatus()).engine_status).toBe(STATUS.OFFLINE);
      // The fixed YAML starts.
      expect((await startWith(s, upstreamJob(AJET))).json).toMatchObject({ success: true, pid: expect.any(Number) });
    });

    it("a YAML without ajet.interchange_server answers error 'interchange_server'; without hydra, 'hydra'", async () => {
      const s = ctx.swarm();
      await expectRefused(s, `ajet:\n${AJET}${DEFAULTS}${HYDRA}`, "'interchange_server'");
      await s.post('/stop_engine', {});
      await expectRefused(s, `ajet:\n${AJET}${INTERCHANGE}${DEFAULTS}`, "'hydra'");
    });

    it('a YAML without an ajet block answers the ValueError that prints the YAML as a Python dict', async () => {
      const s = ctx.swarm();
      await expectRefused(s, `trainer:\n  total_epochs: 1\n  logger: console\n${DEFAULTS}`, "Please set ajet field in yaml file. Current yaml:\n{'trainer': {'total_epochs': 1, 'logger': 'console'}, 'defaults': ['verl_default', 'ajet_default', '_self_']}");
    });

    it('a YAML that is not a mapping, or an empty one, fails on .get() as in Python', async () => {
      const s = ctx.swarm();
      await expectRefused(s, 'just a string', "'str' object has no attribute 'get'");
      await s.post('/stop_engine', {});
      await expectRefused(s, '', "'NoneType' object has no attribute 'get'");
      await s.post('/stop_engine', {});
      await expectRefused(s, `ajet: 5\n${DEFAULTS}`, "'int' object has no attribute 'get'");
    });

    it('the keys AgentJetJob always writes are enough: the engine starts', async () => {
      const s = ctx.swarm();
      expect(UPSTREAM_JOB_TAIL).toContain('defaults:');
      expect((await startWith(s, upstreamJob(AJET))).json).toMatchObject({ success: true, pid: expect.any(Number) });
    });
  });
}
