// Runs the swarm protocol conformance suite against the fake swarm server (a TEST DOUBLE of upstream's server,
// test/fixtures/fake-swarm), started in-process on 127.0.0.1 with its trainer left to the suite.
import { startFakeSwarmServer } from '../fixtures/fake-swarm/server.mjs';
import { defineSwarmConformance } from './swarm-conformance';

defineSwarmConformance({
  name: 'fake swarm server (test double)',
  async start(options) {
    const fake = await startFakeSwarmServer({
      port: 0,
      quiet: true,
      trainer: 'external',
      janitorIntervalMs: options.janitorIntervalMs,
      clientActiveTimeoutS: options.clientActiveTimeoutS,
    });
    return { baseUrl: fake.url, close: () => fake.close() };
  },
  async startTraining(options) {
    const fake = await startFakeSwarmServer({
      port: 0,
      quiet: true,
      trainer: 'fake',
      bootDelayMs: options.bootDelayMs,
      ...(options.trainingStepMs !== undefined ? { weightSyncDelayMs: options.trainingStepMs } : {}),
    });
    return { baseUrl: fake.url, close: () => fake.close() };
  },
  capabilities: { configurableJanitor: true, chatWithoutRunner: true, endTrainWithoutRunner: true },
});
