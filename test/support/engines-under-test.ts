import Docker from 'dockerode';
import { ServerProfileInput } from '../../electron/shared/schemas-servers';
import { loadTestbed, type Testbed } from '../testbed/testbed';
import { connectTestbedServer } from './testbed-server';
import type { TestApp, TestAppOptions } from './test-app';

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
}

function localDocker(tb: Testbed): EngineUnderTest {
  return {
    name: 'local Docker',
    product: 'docker',
    remote: false,
    image: tb.fakeSwarmImage,
    appOptions: () => ({}),
    attach: () => Promise.resolve('local'),
    direct: new Docker({ socketPath: tb.dockerSocket }),
    pullCommand: (image) => `docker pull ${image}`,
  };
}

function podmanRootful(tb: Testbed): EngineUnderTest {
  const podman = tb.podman!;
  return {
    name: 'Podman rootful',
    product: 'podman',
    remote: false,
    image: podman.image,
    appOptions: () => ({ podmanHost: `unix://${podman.rootful.socket}` }),
    attach: () => Promise.resolve('local-podman'),
    direct: new Docker({ socketPath: podman.rootful.socket }),
    pullCommand: (image) => `podman pull ${image}`,
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
  };
}

/** Every engine the test bed runs; the lifecycle suite runs once per entry. */
export function enginesUnderTest(tb: Testbed = loadTestbed()): EngineUnderTest[] {
  if (!tb.podman) {
    throw new Error('the test bed has no Podman (testbed.json without `podman`): re-run `bash test/testbed/testbed.sh up` from this checkout');
  }
  return [localDocker(tb), podmanRootful(tb), podmanRootlessOverSsh(tb)];
}
