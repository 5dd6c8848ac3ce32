// The dry run refuses the job YAMLs upstream's start_engine refuses (start-checks.ts), and its snapshot carries why
// until stop_engine, for the card. The wire answers themselves are in the conformance suite (parts/start-config.ts).
import { afterEach, describe, expect, it } from 'vitest';
import { startDryRunServer, type DryRunServer } from '../../../electron/services/dry-run/dry-run-server';
import { upstreamStartRefusal } from '../../../electron/services/dry-run/start-checks';
import { createEchoRelay } from '../../conformance/support/echo-relay';
import { request } from '../../conformance/support/http';
import { UPSTREAM_JOB_TAIL, upstreamJob } from '../../support/job-yaml';

const AJET = '  data:\n    train_batch_size: 1\n';

let server: DryRunServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('upstreamStartRefusal', () => {
  it('names the first key upstream reads with [...] and does not find, in its order', () => {
    expect(upstreamStartRefusal(`ajet:\n${AJET}`)).toEqual({ error: "'defaults'", missingKey: 'defaults' });
    expect(upstreamStartRefusal(`ajet:\n${AJET}defaults:\n- verl_default\n`)).toEqual({ error: "'interchange_server'", missingKey: 'interchange_server' });
    expect(upstreamStartRefusal(`ajet:\n${AJET}  interchange_server: {}\ndefaults: []\n`)).toEqual({ error: "'hydra'", missingKey: 'hydra' });
    expect(upstreamStartRefusal(upstreamJob(AJET))).toBeNull();
  });

  it('a backbone other than verl/debug/trinity reaches interchange_server before defaults, as upstream does', () => {
    expect(upstreamStartRefusal(`ajet:\n  backbone: other\n${AJET}`)).toEqual({ error: "'interchange_server'", missingKey: 'interchange_server' });
  });

  it("answers Python's words for the wrong shapes: null defaults, a string interchange_server, YAML that does not parse", () => {
    expect(upstreamStartRefusal(`ajet:\n${AJET}defaults:\n`)?.error).toBe("argument of type 'NoneType' is not iterable");
    expect(upstreamStartRefusal(`ajet:\n${AJET}  interchange_server: ipc\ndefaults: []\n`)?.error).toBe("'str' object does not support item assignment");
    expect(upstreamStartRefusal('ajet: [unclosed')).toMatchObject({ missingKey: null, error: expect.stringContaining('does not parse') });
    expect(upstreamStartRefusal("project: it's\n")?.error).toBe(`Please set ajet field in yaml file. Current yaml:\n{'project': "it's"}`);
  });
});

describe('a refused start in the dry run', () => {
  it('stays BOOTING with the reason in the snapshot until stop_engine; then the fixed YAML starts', async () => {
    server = await startDryRunServer({ port: 0, trainer: 'auto', bootDelayMs: 10, trainingStepMs: 10, relay: createEchoRelay() });
    const post = (path: string, json: unknown = {}) => request(server!.url, 'POST', path, { json });
    await post('/sync_train_config', { yaml_as_string: `ajet:\n${AJET}` });
    expect((await post('/start_engine')).json).toEqual({ success: false, error: "'defaults'" });
    await new Promise((ok) => setTimeout(ok, 50));
    expect(server.snapshot()).toMatchObject({ status: 'ENGINE.BOOTING', startRefusal: { error: "'defaults'", missingKey: 'defaults' } });
    await post('/stop_engine');
    expect(server.snapshot()).toMatchObject({ status: 'ENGINE.OFFLINE', startRefusal: null });
    expect(UPSTREAM_JOB_TAIL).toContain('interchange_server');
    await post('/sync_train_config', { yaml_as_string: upstreamJob(AJET) });
    expect((await post('/start_engine')).json).toMatchObject({ success: true });
    expect(server.snapshot().startRefusal).toBeNull();
  });
});
