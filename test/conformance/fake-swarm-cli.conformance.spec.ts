// Runs the swarm protocol conformance suite against the fake swarm server (a TEST DOUBLE) started as a separate
// OS process through the command line the test image uses (`ajet-swarm start --swarm-port N`): the suite reaches
// it only through its URL, so it can run against any implementation the same way.
import { describe, expect, it } from 'vitest';
import { defineSwarmConformance, UPSTREAM_DEFAULTS } from './swarm-conformance';
import { startFakeCli } from './support/fake-cli-process';
import { request } from './support/http';

defineSwarmConformance({
  name: 'fake swarm server as a separate process (ajet-swarm start --swarm-port N)',
  start: (options) => startFakeCli(options),
  startTraining: (options) =>
    startFakeCli(UPSTREAM_DEFAULTS, {
      AJET_FAKE_TRAINER: 'fake',
      AJET_FAKE_BOOT_DELAY_MS: String(options.bootDelayMs),
      ...(options.trainingStepMs !== undefined ? { AJET_FAKE_WEIGHT_SYNC_DELAY_MS: String(options.trainingStepMs) } : {}),
    }),
  capabilities: { configurableJanitor: true, chatWithoutRunner: true, endTrainWithoutRunner: true },
});

describe('the CLI target is a separate process reached only by URL', () => {
  it('ajet-swarm start --swarm-port N listens on that loopback port in another process and dies by SIGTERM', async () => {
    const server = await startFakeCli(UPSTREAM_DEFAULTS);
    try {
      expect(server.pid).not.toBe(process.pid);
      expect(server.pid).toBeGreaterThan(0);
      expect(new URL(server.baseUrl).hostname).toBe('127.0.0.1');
      expect((await request(server.baseUrl, 'GET', '/health')).json).toEqual({ status: 'ok' });
    } finally {
      await server.close();
    }
    await expect(request(server.baseUrl, 'GET', '/health')).rejects.toThrow(/ECONNREFUSED/);
  });
});
