// The test bed's Podman services as tests and their cleanup reach them: as root, straight through the sockets.
// (The app reaches the rootless one over SSH as its user; that path is the subject of the tests, not of this file.)
import Docker from 'dockerode';
import { loadTestbed, type Testbed } from '../testbed/testbed';

export type PodmanBedKind = 'rootful' | 'rootless';

export interface PodmanBedService {
  kind: PodmanBedKind;
  /** The service's socket on this machine (the rootless one is /run/user/<uid>/podman/podman.sock). */
  socketPath: string;
  /** A Docker-API client on that socket, as root (root may open the rootless user's socket too). */
  docker: Docker;
}

/** The Podman services testbed.json lists (none for a testbed.json from before Podman). */
export function podmanBedServices(tb: Testbed = loadTestbed()): PodmanBedService[] {
  const sockets: Array<[PodmanBedKind, string | undefined]> = [
    ['rootful', tb.podman?.rootful?.socket],
    ['rootless', tb.podman?.rootless?.socket],
  ];
  return sockets.flatMap(([kind, socketPath]) => (socketPath ? [{ kind, socketPath, docker: new Docker({ socketPath }) }] : []));
}

/** One of the services, or an error that says how to get it. */
export function podmanBedService(kind: PodmanBedKind, tb: Testbed = loadTestbed()): PodmanBedService {
  const service = podmanBedServices(tb).find((s) => s.kind === kind);
  if (!service) throw new Error(`the test bed has no ${kind} Podman service: re-run \`bash test/testbed/testbed.sh up\` from this checkout`);
  return service;
}

/**
 * Removes a container at once, running or not. Podman's Docker-compatible DELETE with force=true first stops the
 * container with its stop timeout (10 s for one that ignores SIGTERM); libpod's own endpoint takes `timeout=0`.
 * Already gone is what we wanted, also when a parallel cleanup removed it first and Podman said so with a 500.
 */
export async function removePodmanContainerNow(docker: Docker, id: string): Promise<void> {
  try {
    await new Promise<void>((resolve, reject) => {
      docker.modem.dial(
        {
          path: `/v4.0.0/libpod/containers/${encodeURIComponent(id)}?`,
          method: 'DELETE',
          options: { force: true, timeout: 0 },
          statusCodes: { 200: true, 204: true, 404: true, 500: 'server error' },
        },
        (error: unknown) => (error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve()),
      );
    });
  } catch (error) {
    const gone = await docker
      .getContainer(id)
      .inspect()
      .then(
        () => false,
        (e: { statusCode?: number }) => e.statusCode === 404,
      );
    if (!gone) throw error;
  }
}
