// Runs only the conformance suite against deliberately lenient fakes (lenient.mutant.ts). These runs are expected
// to fail; lenient-fakes-are-caught.spec.ts starts this config in a child process and checks which tests failed.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  root: `${import.meta.dirname}/../../..`,
  test: {
    name: 'conformance-mutants',
    environment: 'node',
    include: ['test/conformance/mutants/**/*.mutant.ts'],
    maxWorkers: 1,
  },
});
