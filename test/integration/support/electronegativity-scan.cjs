/**
 * Runs Electronegativity 1.10.3's scanner over a folder and prints its findings as JSON on stdout.
 *
 * Why not the CLI as is: at start-up both the CLI and its runner fetch translations from an S3
 * bucket (https://electronegativity-i18n.s3...), an outbound connection our tests must not make
 * (and cannot: only loopback is reachable). Its CSV writer also races its header against the rows,
 * and its SARIF output drops the severity. So this script swaps in the scanner's bundled en-US
 * strings before loading it, then calls the same `run()` the CLI calls and prints the findings
 * with their severity.
 *
 * Usage: node electronegativity-scan.cjs <input dir> <electron version> [excluded,checks]
 */
'use strict';
const Module = require('node:module');
const path = require('node:path');

const pkgDir = path.dirname(require.resolve('@doyensec/electronegativity/package.json'));
const i18nModulePath = path.join(pkgDir, 'dist', 'locales', 'i18n.js');
const i18n = require(require.resolve('i18n', { paths: [pkgDir] }));

function offlineTranslations() {
  i18n.configure({
    locales: ['en-US'],
    defaultLocale: 'en-US',
    directory: path.join(pkgDir, 'dist', 'locales'),
    updateFiles: false,
    objectNotation: true,
    retryInDefaultLocale: true,
    register: global,
  });
  i18n.setLocale('en-US');
  return Promise.resolve();
}

// Pre-load the scanner's i18n module with the offline version; require() then never runs the original.
const stand = new Module(i18nModulePath);
stand.filename = i18nModulePath;
stand.loaded = true;
stand.exports = { __esModule: true, default: offlineTranslations };
require.cache[i18nModulePath] = stand;

const run = require('@doyensec/electronegativity');

// The scanner logs progress with console.log; keep stdout for the JSON result alone.
console.log = (...args) => console.error(...args);

/**
 * AvailableSecurityFixesGlobalCheck downloads Electron's release list from GitHub on every run.
 * That is network access, not analysis of our code, so it is always skipped. Electron upgrades
 * are tracked through the pinned version in package.json instead.
 */
const ALWAYS_EXCLUDED = ['AvailableSecurityFixesGlobalCheck'];

const [input, electronVersion, excluded = ''] = process.argv.slice(2);
if (!input || !electronVersion) {
  console.error('usage: electronegativity-scan.cjs <input dir> <electron version> [excluded,checks]');
  process.exit(2);
}

run({
  input: path.resolve(input),
  customScan: [],
  excludeFromScan: [...ALWAYS_EXCLUDED, ...excluded.split(',').map((c) => c.trim()).filter(Boolean)],
  isRelative: true,
  isVerbose: false,
  electronVersionOverride: electronVersion,
  parserPlugins: [],
})
  .then((result) => {
    const issues = result.issues.map((issue) => ({
      id: issue.id,
      severity: issue.severity.name,
      confidence: issue.confidence.name,
      file: issue.file,
      line: issue.location ? issue.location.line : null,
      column: issue.location ? issue.location.column : null,
      sample: issue.sample || '',
      manualReview: Boolean(issue.manualReview),
      description: issue.description,
    }));
    process.stdout.write(
      JSON.stringify({
        atomicChecks: result.atomicChecks,
        globalChecks: result.globalChecks,
        errors: result.errors,
        issues,
      }),
    );
  })
  .catch((error) => {
    console.error(error && error.stack ? error.stack : String(error));
    process.exit(1);
  });
