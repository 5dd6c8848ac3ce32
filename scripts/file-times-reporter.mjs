// A vitest reporter for `npm test` (scripts/run-tests.mjs, issue 35): what each test file cost, into the JSON file named
// by AGENTSWARM_FILE_TIMES. vitest's JSON report times a file from its first test's start to its last test's end, which
// leaves out the import and the beforeAll/afterAll hooks (packaging.spec builds and packages the app in a beforeAll:
// 0.1 s there, 14 s here); this adds them back from vitest's own diagnostic of the module.
import { writeFileSync } from 'node:fs';

export default class FileTimesReporter {
  rows = [];

  onTestModuleEnd(testModule) {
    try {
      const d = testModule.diagnostic();
      this.rows.push({
        file: testModule.moduleId,
        project: testModule.project.name,
        // Import (collect) + environment and runner set-up + tests and hooks, in seconds.
        seconds: (d.collectDuration + d.setupDuration + d.prepareDuration + d.environmentSetupDuration + d.duration) / 1000,
        importSeconds: d.collectDuration / 1000,
        tests: [...testModule.children.allTests()].length,
        state: testModule.state(),
      });
    } catch (error) {
      // Timing is a report, never a reason for a run to fail.
      console.error(`[file-times] ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  onTestRunEnd() {
    const out = process.env.AGENTSWARM_FILE_TIMES;
    if (out) writeFileSync(out, `${JSON.stringify(this.rows, null, 1)}\n`);
  }
}
