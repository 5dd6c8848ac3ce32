// Runs the swarm protocol conformance suite against the dry-run swarm server (electron/services/dry-run), the
// product code, started in-process on 127.0.0.1 with its trainer left to the suite (trainer 'external') and a
// TEST DOUBLE relay (support/echo-relay.ts) answering chat calls in place of a debug LLM.
import { startDryRunServer } from '../../electron/services/dry-run/dry-run-server';
import { createEchoRelay } from './support/echo-relay';
import { defineSwarmConformance } from './swarm-conformance';

defineSwarmConformance({
  name: 'dry-run swarm server',
  async start(options) {
    const server = await startDryRunServer({
      port: 0,
      trainer: 'external',
      janitorIntervalMs: options.janitorIntervalMs,
      clientActiveTimeoutS: options.clientActiveTimeoutS,
      relay: createEchoRelay(),
    });
    return { baseUrl: server.url, close: () => server.close() };
  },
  async startTraining(options) {
    const server = await startDryRunServer({
      port: 0,
      trainer: 'auto',
      bootDelayMs: options.bootDelayMs,
      ...(options.trainingStepMs !== undefined ? { trainingStepMs: options.trainingStepMs } : {}),
      relay: createEchoRelay(),
    });
    return { baseUrl: server.url, close: () => server.close() };
  },
  capabilities: { configurableJanitor: true, chatWithoutRunner: true, endTrainWithoutRunner: true },
});
