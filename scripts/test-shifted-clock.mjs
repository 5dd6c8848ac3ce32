#!/usr/bin/env node
// `npm run test:shifted-clock`: the unit, renderer and conformance suites with the clock a year ahead and in a far time
// zone, to find tests that hold only on the day they were written (issue 28). Not part of `npm test`: it costs about as
// much as those suites themselves (2.5 min on two idle cores), more than the minute CI can spare; run it after changing
// fixtures with dates, and before a release.
//   node scripts/test-shifted-clock.mjs [days] [time zone] [vitest args…]   (defaults: 365, Pacific/Kiritimati)
// The shift is made inside every Node process of the run (scripts/shifted-clock.mjs, preloaded with --import; it
// says why not with faketime); the time zone is TZ, which Node and the Python children both read.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const [days = '365', zone = 'Pacific/Kiritimati', ...rest] = process.argv.slice(2);
if (!/^-?\d+(\.\d+)?$/.test(days)) {
  console.error(`test-shifted-clock: "${days}" is not a number of days (example: node scripts/test-shifted-clock.mjs 365 America/Adak)`);
  process.exit(2);
}
const args = rest.length > 0 ? rest : ['--project', 'unit', '--project', 'renderer', '--project', 'conformance'];
console.log(`[shifted-clock] clock +${days} days, TZ=${zone}: vitest run ${args.join(' ')}`);
const result = spawnSync('npx', ['vitest', 'run', ...args], {
  cwd: root,
  stdio: 'inherit',
  env: {
    ...process.env,
    AGENTSWARM_TEST_CLOCK_SHIFT_DAYS: days,
    TZ: zone,
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import=${pathToFileURL(join(root, 'scripts/shifted-clock.mjs')).href}`.trim(),
  },
});
process.exit(result.status ?? 1);
