/**
 * `npm run web`: the app's services and UI for a normal browser, on 127.0.0.1 only by default.
 * Used where Electron cannot start (headless servers, this project's CI) and by the UI tests.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createAppServices } from '../services/app-services';
import { EventHub } from '../services/events';
import { defaultUserDataDir } from '../services/util/user-data-dir';
import { startBrowserHost } from './server';

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(here, '..', '..');

function usage(): string {
  return [
    'Usage: npm run web -- [--port N] [--host 127.0.0.1] [--allow-non-loopback] [--data-dir DIR]',
    '  --port N               port to listen on (default: a free port)',
    '  --host ADDR            address to bind (default 127.0.0.1)',
    '  --allow-non-loopback   allow binding a non-loopback address (exposes Docker control!)',
    '  --data-dir DIR         where settings live (default: the desktop app\'s folder)',
  ].join('\n');
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      'allow-non-loopback': { type: 'boolean', default: false },
      'data-dir': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(usage());
    return;
  }
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`--port must be a whole number from 0 to 65535, got "${values.port}"`);
  }
  const version = (JSON.parse(readFileSync(resolve(repoRoot, 'package.json'), 'utf8')) as { version: string }).version;
  const hub = new EventHub();
  const services = createAppServices({
    dataDir: values['data-dir'] ?? defaultUserDataDir(),
    host: 'browser',
    version,
    events: hub,
    // Warnings also on the console, where the user started `npm run web`; full errors only in the file.
    logger: { warn: (message) => console.warn(`agentswarm web: ${message}`) },
  });
  // Never throws: a broken settings file leaves defaults in memory (shown in the UI), and
  // swarm servers are watched again all the same.
  await services.start();
  const host = await startBrowserHost({
    handlers: services.handlers,
    hub,
    staticDir: resolve(repoRoot, 'out', 'renderer'),
    port,
    ...(values.host ? { host: values.host } : {}),
    allowNonLoopback: values['allow-non-loopback'],
    logger: services.logger,
  });
  console.log(`AgentSwarm Desktop (browser host) is running. Open: ${host.openUrl}`);

  let closing = false;
  const shutdown = (): void => {
    if (closing) return;
    closing = true;
    void Promise.allSettled([host.close(), services.dispose()]).then(() => process.exit(0));
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
}

main().catch((error: unknown) => {
  console.error(`agentswarm web: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
