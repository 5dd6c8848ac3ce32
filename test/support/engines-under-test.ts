import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import Docker from 'dockerode';
import { ServerProfileInput } from '../../electron/shared/schemas-servers';
import { loadTestbed, type Testbed } from '../testbed/testbed';
import { connectTestbedServer } from './testbed-server';
import type { TestApp, TestAppOptions } from './test-app';

const execFileAsync = promisify(execFile);

/**
 * One container engine of the test bed as the parameterised suites see it: how to start the app so
 * that it has the engine, how to find the engine's id in it, and a root client on the same engine for
 * what the tests do behind the app's back (kill, rm -f, commit an image, a foreign container).
 */
export interface EngineUnderTest {
  /** Shown in the suite's name: "local Docker", "Podman rootful", "Podman rootless over SSH". */
  readonly name: string;
  readonly product: 'docker' | 'podman';
  /** Reached over SSH: the app sees its ports through a tunnel. */
  readonly remote: boolean;
  /** The swarm image as this engine stores it (one reference on every engine of the test bed). */
  readonly image: string;
  /** What startTestApp needs so the app registers this engine. */
  appOptions(): TestAppOptions;
  /** The engine's id in `app` (an SSH server is added and connected first). */
  attach(app: TestApp): Promise<string>;
  /** Root's client on the same engine (local socket: the test bed shares this machine). */
  readonly direct: Docker;
  /** The pull command an IMAGE_NOT_FOUND message names for `image` on this engine. */
  pullCommand(image: string): string;
  /** `commit --change <change> <container> <repo>:<tag>` on this engine. */
  commitImage(containerId: string, repo: string, tag: string, change: string): Promise<void>;
}

function commitThroughApi(direct: Docker): EngineUnderTest['commitImage'] {
  return async (containerId, repo, tag, change) => {
    await direct.getContainer(containerId).commit({ repo, tag, changes: [change] });
  };
}

function localDocker(tb: Testbed): EngineUnderTest {
  const direct = new Docker({ socketPath: tb.dockerSocket });
  return {
    name: 'local Docker',
    product: 'docker',
    remote: false,
    image: tb.fakeSwarmImage,
    appOptions: () => ({}),
    attach: () => Promise.resolve('local'),
    direct,
    pullCommand: (image) => `docker pull ${image}`,
    commitImage: commitThroughApi(direct),
  };
}

function podmanRootful(tb: Testbed): EngineUnderTest {
  const podman = tb.podman!;
  const direct = new Docker({ socketPath: podman.rootful.socket });
  return {
    name: 'Podman rootful',
    product: 'podman',
    remote: false,
    image: podman.image,
    appOptions: () => ({ podmanHost: `unix://${podman.rootful.socket}` }),
    attach: () => Promise.resolve('local-podman'),
    direct,
    pullCommand: (image) => `podman pull ${image}`,
    commitImage: commitThroughApi(direct),
  };
}

function podmanRootlessOverSsh(tb: Testbed): EngineUnderTest {
  const podman = tb.podman!;
  return {
    name: 'Podman rootless over SSH',
    product: 'podman',
    remote: true,
    image: podman.image,
    appOptions: () => ({}),
    attach: (app) =>
      connectTestbedServer(app, 'podman-rootless', tb, {
        username: podman.rootless.user,
        docker: ServerProfileInput.shape.docker.parse({ engine: 'podman', transport: 'user-socket' }),
      }),
    direct: new Docker({ socketPath: podman.rootless.socket }),
    pullCommand: (image) => `podman pull ${image}`,
    // Podman 4.3's rootless service answers a commit through the API with 500 "runroot must be set";
    // the user's CLI commits fine (a test-bed gap, not something the app does).
    commitImage: async (containerId, repo, tag, change) => {
      await execFileAsync('runuser', ['-u', podman.rootless.user, '--', 'env', `XDG_RUNTIME_DIR=${podman.rootless.runtimeDir}`, `HOME=${podman.rootless.home}`,
        'podman', 'commit', '-q', '--change', change, containerId, `${repo}:${tag}`], { timeout: 60_000 });
    },
  };
}

/** Every engine the test bed runs; the lifecycle suite runs once per entry. */
export function enginesUnderTest(tb: Testbed = loadTestbed()): EngineUnderTest[] {
  if (!tb.podman) {
    throw new Error('the test bed has no Podman (testbed.json without `podman`): re-run `bash test/testbed/testbed.sh up` from this checkout');
  }
  return [localDocker(tb), podmanRootful(tb), podmanRootlessOverSsh(tb)];
}
