// The conformance suite against each lenient variant of the fake (./lenient-proxy.ts). Not matched by the
// `conformance` project (it is expected to fail); run by lenient-fakes-are-caught.spec.ts through
// ./vitest.mutants.config.ts, which reads the failures.
import { defineSwarmConformance } from '../swarm-conformance';
import { LENIENCIES, startLenientFake, startLenientTrainingFake, type Leniency } from './lenient-proxy';

for (const leniency of Object.keys(LENIENCIES) as Leniency[]) {
  defineSwarmConformance({
    name: `lenient fake [${leniency}]`,
    start: (options) => startLenientFake(leniency, options),
    startTraining: (options) => startLenientTrainingFake(leniency, options),
    capabilities: { configurableJanitor: true, chatWithoutRunner: true, endTrainWithoutRunner: true },
  });
}
