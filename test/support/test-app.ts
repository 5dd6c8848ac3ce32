import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { startBrowserHost, type BrowserHost } from '../../electron/browser-host/server';
import { createAppServices, type AppServices, type AppServicesOptions } from '../../electron/services/app-services';
import { LABEL_APP_VERSION } from '../../electron/services/engines/container-engine';
import { EventHub } from '../../electron/services/events';
import type { Handlers } from '../../electron/services/ipc/handlers';
import { loadTestbed } from '../testbed/testbed';
import { contractCheckedHandlers } from './helpers';
import { podmanBedServices, removePodmanContainerNow } from './podman-bed';

/**
 * The app version every test passes to the app. The app writes it on each container it starts
 * (`io.agentswarm.app-version`), so it is also THE label that marks test containers: tests add it
 * to containers they create by hand, and the cleanup here and in `testbed.sh down` removes exactly
 * what carries it. Two checkouts testing on one test bed at once set AGENTSWARM_TEST_RUN (a word) each, so their
 * cleanups sweep only their own containers (`testbed.sh down` removes only the unnamed run's).
 */
export const TEST_APP_VERSION = process.env.AGENTSWARM_TEST_RUN ? `0.0.0-test.${process.env.AGENTSWARM_TEST_RUN}` : '0.0.0-test';
export const TEST_CONTAINER_LABELS: Record<string, string> = { [LABEL_APP_VERSION]: TEST_APP_VERSION };
/** The same label as a Docker filter (`docker ps --filter label=…`); testbed.sh spells it out too. */
export const TEST_CONTAINER_FILTER = `${LABEL_APP_VERSION}=${TEST_APP_VERSION}`;

export interface TestAppOptions {
  /** The engine endpoint (default: the test bed's dockerd through DOCKER_HOST or the default socket). */
  dockerHost?: string;
  /** A local Podman engine (`local-podman`) at this endpoint, e.g. the test bed's rootful socket. */
  podmanHost?: string;
  /** Swarm monitor poll interval in ms; short, so tests see status changes quickly. */
  monitorIntervalMs?: number;
  /** Also serve this built UI through a browser host (e2e). */
  staticDir?: string;
  /** The browser host's port and token (default: a free port, a new random token): a backend restart keeps a page's address. */
  hostPort?: number;
  hostToken?: string;
  /** Start over the data folder of an earlier app: an app restart. Not removed by this app's dispose. */
  dataDir?: string;
  /**
   * SSH servers: known_hosts and ssh config default to files in the data folder (never ~/.ssh), and
   * the environment to an empty one (never the user's SSH_AUTH_SOCK).
   */
  ssh?: NonNullable<AppServicesOptions['ssh']>;
  /** Desktop notifications (default: the browser host's, pushed as `app:notification`). */
  notifier?: AppServicesOptions['notifier'];
  /** The fleet home's GPU sampling (issue 33): the labelled nvidia-smi double (test/support/fake-nvidia-smi.ts), its pace. */
  gpus?: AppServicesOptions['gpus'];
}

export interface TestApp {
  readonly dataDir: string;
  readonly hub: EventHub;
  readonly services: AppServices;
  /** The app's handlers, each response checked against the contract. */
  readonly handlers: Handlers;
  /** The browser host, when `staticDir` was given. */
  readonly host: BrowserHost | null;
  /** Stops the browser host and the services; keeps the data folder and the containers (an app quit). */
  stop(): Promise<void>;
  /** `stop()`, then removes every test container (by label) and the data folder this app created. */
  dispose(): Promise<void>;
}

/**
 * The app as the integration and e2e specs need it: a fresh data folder, an EventHub, the real
 * services (started, so they resume watching), optionally the browser host, and a dispose that
 * leaves nothing behind. Specs never build these by hand (test/unit/build/test-hygiene.spec.ts).
 */
export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const ownsDataDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'agentswarm-test-')));
  const hub = new EventHub();
  const services = createAppServices({
    dataDir,
    host: 'browser',
    version: TEST_APP_VERSION,
    events: hub,
    monitorIntervalMs: options.monitorIntervalMs ?? 200,
    // A test run of its own (scripts/test-lanes.mjs) sees only its own swarm servers: the other runs' on the shared dockerd
    // start, fail and stop meanwhile, and an SSH server's link read "degraded" on the word of one still starting (CI-AH).
    ...(process.env.AGENTSWARM_TEST_RUN ? { containerScope: TEST_CONTAINER_LABELS } : {}),
    ...(options.dockerHost ? { dockerHost: options.dockerHost } : {}),
    ...(options.podmanHost ? { podmanHost: options.podmanHost } : {}),
    ...(options.notifier ? { notifier: options.notifier } : {}),
    ...(options.gpus ? { gpus: options.gpus } : {}),
    ssh: {
      knownHostsPath: join(dataDir, 'known_hosts'),
      configPath: join(dataDir, 'ssh_config'),
      env: {},
      ...options.ssh,
      // A Slurm login node's queue poll every 2 s, not the app's 30 s / 60 s: tests see a job's changes at once.
      // Slurm jobs look for a port from here, not 10086: on the test bed the node is this machine, where every test
      // app's tunnels listen from 10086 up (a job found 10087 free, then another lane's tunnel took it: CI 2026-12-05).
      // Below the ephemeral range, one span of 1,000 per process.
      tuning: { slurmQueuePace: { shownMs: 2000, hiddenMs: 2000 }, slurmPortBase: 21_000 + (process.pid % 11) * 1000, ...options.ssh?.tuning },
    },
  });
  let host: BrowserHost | null = null;
  try {
    await services.start();
    // With the app log, as `npm run web` wires it (browser-host/cli.ts).
    if (options.staticDir) {
      host = await startBrowserHost({
        handlers: services.handlers,
        hub,
        staticDir: options.staticDir,
        logger: services.logger,
        ...(options.hostPort !== undefined ? { port: options.hostPort } : {}),
        ...(options.hostToken !== undefined ? { token: options.hostToken } : {}),
      });
    }
  } catch (error) {
    await services.dispose().catch(() => undefined);
    if (ownsDataDir) await rm(dataDir, { recursive: true, force: true });
    throw error;
  }

  let stopped: Promise<void> | null = null;
  const stop = () => {
    stopped ??= (async () => {
      await host?.close();
      await services.dispose();
    })();
    return stopped;
  };
  return {
    dataDir,
    hub,
    services,
    handlers: contractCheckedHandlers(services.handlers),
    host,
    stop,
    async dispose() {
      await stop();
      // npm test runs the Slurm files in a lane of their own beside the other integration files: their apps make
      // no containers on the shared daemons, so their cleanup must not sweep away the other lane's running ones.
      if (!process.env.AGENTSWARM_TEST_SLURM_LANE) await removeTestContainers();
      // Retried: a file the stopped app's last write puts in the folder while it is removed makes rmdir fail with
      // ENOTEMPTY (loaded run L18, dry-run-app); Node retries that with a short backoff.
      if (ownsDataDir) await rm(dataDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
    },
  };
}

/**
 * Removes every container that carries the test label on the test bed's dockerd and on its Podman services
 * (rootful and rootless): the ones the app started, a Start that failed half-way and never reported its id, and
 * those a test made by hand.
 */
export async function removeTestContainers(): Promise<void> {
  const tb = loadTestbed();
  const docker = new Docker({ socketPath: tb.dockerSocket });
  await Promise.all([
    removeLabelled(docker, (id) =>
      docker
        .getContainer(id)
        .remove({ force: true })
        // Already gone (removed by the test itself a moment ago) is what we wanted.
        .catch((error: { statusCode?: number }) => {
          if (error.statusCode !== 404 && error.statusCode !== 409) throw error;
        }),
    ),
    ...podmanBedServices(tb).map(({ docker: podman }) => removeLabelled(podman, (id) => removePodmanContainerNow(podman, id))),
  ]);
}

async function removeLabelled(engine: Docker, remove: (id: string) => Promise<void>): Promise<void> {
  const ours = await engine.listContainers({ all: true, filters: { label: [TEST_CONTAINER_FILTER] } });
  // A container inside a Slurm job belongs to that job (scancel removes it; slurm-podman.spec cleans its own):
  // npm test runs the Slurm files beside the others, whose cleanups must not pull it from under a running job.
  await Promise.all(ours.filter((c) => !c.Labels?.['io.agentswarm.slurm-job']).map((c) => remove(c.Id)));
}
