/**
 * The backend of `npm run bench -- watch` in a process of its own, so its CPU time is its own: the
 * app's swarm and training domains of the checkout at <root> (this one, or an older commit's, for a
 * before/after), wired as electron/services/app-services.ts wires them, watching the given URLs as
 * servers of the local engine. No page is ever connected: "no window open".
 * Usage: bench-watch-child.ts <root> <dataDir> <url>…   Prints `READY <pid>` once it watches them.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type * as Visibility from '../electron/services/app/visibility';
import type { ServiceContext } from '../electron/services/domain';
import type * as EngineRegistry from '../electron/services/engines/engine-registry';
import type * as LocalDocker from '../electron/services/engines/local-docker';
import type * as Events from '../electron/services/events';
import type * as Notifier from '../electron/services/notifier';
import type * as Profiles from '../electron/services/profiles/profile-store';
import type * as Swarm from '../electron/services/swarm/register';
import type * as Training from '../electron/services/training/register';
import type * as AppLogModule from '../electron/services/util/app-log';

async function load<T>(root: string, path: string): Promise<T> {
  return (await import(pathToFileURL(join(root, path)).href)) as T;
}

async function main(): Promise<void> {
  const [root, dataDir, ...urls] = process.argv.slice(2);
  if (!root || !dataDir || urls.length === 0) throw new Error('usage: bench-watch-child.ts <root> <dataDir> <url>…');
  const { EventHub } = await load<typeof Events>(root, 'electron/services/events.ts');
  const { EngineRegistry: Registry } = await load<typeof EngineRegistry>(root, 'electron/services/engines/engine-registry.ts');
  const { createLocalDockerEngine } = await load<typeof LocalDocker>(root, 'electron/services/engines/local-docker.ts');
  const { AppLog } = await load<typeof AppLogModule>(root, 'electron/services/util/app-log.ts');
  const { eventNotifier } = await load<typeof Notifier>(root, 'electron/services/notifier.ts');
  const { ProfileStore } = await load<typeof Profiles>(root, 'electron/services/profiles/profile-store.ts');
  const { registerSwarm } = await load<typeof Swarm>(root, 'electron/services/swarm/register.ts');
  const { registerTraining } = await load<typeof Training>(root, 'electron/services/training/register.ts');
  // Newer checkouts know whether a page is shown; none is here. Older ones poll the same whatever the window.
  const visibilityFile = join(root, 'electron/services/app/visibility.ts');
  const visibility = existsSync(visibilityFile) ? new (await load<typeof Visibility>(root, 'electron/services/app/visibility.ts')).PageVisibility() : undefined;

  const events = new EventHub();
  const engines = new Registry();
  // The real local engine, as in the app (its Docker event stream included); the watched servers answer on their own.
  engines.add(createLocalDockerEngine());
  const appLog = new AppLog(dataDir);
  const context = {
    host: 'browser' as const,
    version: '0.0.0-test',
    events,
    engines,
    logger: appLog,
    appLog,
    dataDir,
    downloadsDir: join(dataDir, 'exports'),
    notifier: eventNotifier(events),
    profiles: new ProfileStore(dataDir, appLog),
    resourcesDir: join(root, 'resources'),
    ...(visibility ? { visibility } : {}),
  } as unknown as ServiceContext;
  const swarm = registerSwarm(context);
  const training = registerTraining(context, { swarm });
  // Not swarm.start(): that would also watch every swarm container on the shared test Docker.
  await training.start?.();
  urls.forEach((url, i) => swarm.monitor.watch({ engineId: 'local', containerId: `bench${String(i).padStart(7, '0')}`, url }));
  process.stdout.write(`READY ${process.pid}\n`);
  process.once('SIGTERM', () => {
    void (async () => {
      await training.dispose?.();
      await swarm.dispose?.();
      await engines.get('local').dispose();
      process.exit(0);
    })();
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
