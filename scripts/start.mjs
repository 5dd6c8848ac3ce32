#!/usr/bin/env node
/**
 * `npm start`: build, then run the desktop app if this machine has the Electron binary, or the
 * browser host if it does not (e.g. CI and headless servers, where the binary cannot be
 * downloaded). Extra arguments go to whichever runs.
 *
 * The check never loads the `electron` package: its index.js starts a binary download when the
 * binary is missing. It only looks for the files that package would point at.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => join(root, 'node_modules', '.bin', process.platform === 'win32' ? `${name}.cmd` : name);
// A leading '--' (node scripts/start.mjs -- --port 1) separates our args from node's; npm strips it.
const args = process.argv[2] === '--' ? process.argv.slice(3) : process.argv.slice(2);

/** Runs a child with inherited stdio, forwarding our termination signals; resolves to its exit. */
function run(command, commandArgs) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, commandArgs, { cwd: root, stdio: 'inherit' });
    const forward = (signal) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    };
    const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'];
    for (const signal of signals) process.on(signal, forward);
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      for (const s of signals) process.off(s, forward);
      resolvePromise({ code, signal });
    });
  });
}

/** Ends this process the way the child ended: same exit code, or the same signal. */
function exitLike({ code, signal }) {
  if (signal) {
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code ?? 1);
}

/**
 * Where the Electron binary would be, if it is installed: node_modules/electron/path.txt names it
 * relative to node_modules/electron/dist (or to ELECTRON_OVERRIDE_DIST_PATH, as the package does).
 */
function electronBinary() {
  const pkgDir = join(root, 'node_modules', 'electron');
  const pathFile = join(pkgDir, 'path.txt');
  const override = process.env.ELECTRON_OVERRIDE_DIST_PATH;
  if (override) {
    const name = existsSync(pathFile) ? readFileSync(pathFile, 'utf8').trim() : 'electron';
    const candidate = join(override, name);
    return existsSync(candidate) ? { path: candidate } : { missing: `${candidate} missing` };
  }
  if (!existsSync(pathFile)) return { missing: 'node_modules/electron/path.txt missing' };
  const candidate = join(pkgDir, 'dist', readFileSync(pathFile, 'utf8').trim());
  return existsSync(candidate) ? { path: candidate } : { missing: 'node_modules/electron/dist missing' };
}

async function main() {
  const build = await run(bin('electron-vite'), ['build']);
  if (build.signal || build.code !== 0) return exitLike(build);

  let electron = electronBinary();
  if (!electron.path && !process.env.ELECTRON_SKIP_BINARY_DOWNLOAD) {
    // Electron 45 has no postinstall: its binary arrives on first start. Use the package's own
    // installer (it honours ELECTRON_MIRROR); where nothing can be downloaded it fails fast.
    console.log('Fetching the Electron binary (first start only)...');
    const install = spawnSync(process.execPath, [join(root, 'node_modules', 'electron', 'install.js')], {
      cwd: root,
      encoding: 'utf8',
      timeout: 10 * 60 * 1000,
    });
    if (install.status === 0) electron = electronBinary();
    else if (!electron.path) electron = { missing: `${electron.missing}; its download failed` };
  }
  if (electron.path) return exitLike(await run(electron.path, ['.', ...args]));

  console.log(
    `Electron binary not available on this machine (${electron.missing}); starting the browser host instead.`,
  );
  return exitLike(await run(bin('tsx'), [join('electron', 'browser-host', 'cli.ts'), ...args]));
}

main().catch((error) => {
  console.error(`npm start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
