/**
 * The backend of `npm run bench -- logs` in a process of its own (as in real use, and so its RSS is
 * the backend's alone): the app's services over the browser host. Prints `READY <port> <token> <pid>`
 * (its own pid: `tsx` runs it in a child of the process the bench spawned).
 */
import { startBrowserHost } from '../electron/browser-host/server';
import { createAppServices } from '../electron/services/app-services';
import { EventHub } from '../electron/services/events';
import { TEST_APP_VERSION } from '../test/support/test-app';

async function main(): Promise<void> {
  const dataDir = process.argv[2];
  if (!dataDir) throw new Error('usage: bench-logs-child.ts <dataDir>');
  const hub = new EventHub();
  // The test version: containers this backend starts carry the test label, so the cleanup finds them.
  const services = createAppServices({ dataDir, host: 'browser', version: TEST_APP_VERSION, events: hub });
  await services.start();
  const host = await startBrowserHost({ handlers: services.handlers, hub, staticDir: dataDir });
  process.stdout.write(`READY ${host.port} ${host.token} ${process.pid}\n`);
  const stop = async () => {
    await host.close();
    await services.dispose();
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop());
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
