// A debug episode's abort (the generated debug script's mark in its workflow_output metadata) through the real
// dry-run server into the real trace store: traced as a debug episode with the reported reward; a plain abort and
// a later claim of the same episode are not.
import { afterEach, describe, expect, it } from 'vitest';
import { startDryRunServer, type DryRunServer } from '../../../electron/services/dry-run/dry-run-server';
import { TraceStore } from '../../../electron/services/dry-run/trace-store';
import { DEBUG_EPISODE_MARK } from '../../../electron/shared/schemas-dryrun';
import { JOB_YAML } from '../../conformance/support/swarm';
import { createEchoRelay } from '../../conformance/support/echo-relay';
import { ClientSequences } from './swarm-client-sequences';

let server: DryRunServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function abort(client: ClientSequences, episodeUuid: string, workflowOutput: unknown, taskId: string): Promise<unknown> {
  const reply = await fetch(`${client.serverUrl}/abort_episode`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_uuid: client.clientUuid, episode_uuid: episodeUuid, workflow_output: workflowOutput, task_id: taskId, declare_client_active: true }),
  });
  return reply.json();
}

describe('a debug episode in the dry run trace', () => {
  it('a marked abort is traced as debug with its reward; a plain abort is not; a new claim clears the mark', async () => {
    const traces = new TraceStore();
    server = await startDryRunServer({ port: 0, trainer: 'auto', bootDelayMs: 10, trainingStepMs: 30, trace: traces, relay: createEchoRelay() });
    const client = new ClientSequences(server.url);
    await client.autoSyncTrainConfigAndStartEngine(JOB_YAML);
    const summary = (uuid: string) => traces.query({ step: null, taskId: null, offset: 0, limit: 100 }).episodes.find((e) => e.episodeUuid === uuid);

    const debug = await client.beginEpisode({ discardEpisodeTimeout: 60 });
    const marked = { reward: 0.8, is_success: true, metadata: { item_id: 'q1', [DEBUG_EPISODE_MARK]: true }, log_metrics: {} };
    // The server answers as upstream's does: an abort always succeeds, whatever its workflow_output.
    expect(await abort(client, debug.episodeUuid, marked, 'q1')).toEqual({ success: true });
    expect(summary(debug.episodeUuid)).toMatchObject({ state: 'aborted', debug: { reward: 0.8 }, reward: null, taskId: 'q1' });
    expect(traces.get(debug.episodeUuid)?.metadata).toMatchObject({ item_id: 'q1', [DEBUG_EPISODE_MARK]: true });

    const plain = await client.beginEpisode({ discardEpisodeTimeout: 60 });
    await client.abortEpisode(plain.episodeUuid);
    expect(summary(plain.episodeUuid)).toMatchObject({ state: 'aborted', debug: null });

    // The debug episode went back to the pool: claimed again, it is not a debug episode any more.
    const claims = [];
    for (let i = 0; i < 4; i += 1) claims.push(await client.beginEpisode({ discardEpisodeTimeout: 60 }));
    expect(claims.map((c) => c.episodeUuid)).toContain(debug.episodeUuid);
    expect(summary(debug.episodeUuid)).toMatchObject({ state: 'claimed', debug: null });
  });
});
