import type { EngineWording } from './engine-wording';

/** Podman's fixes: the EngineWording sentences plus the failures only Podman has. */
export interface PodmanWording extends EngineWording {
  /** `--init` needs catatonit (or `init_path` in containers.conf), which Podman does not always pull in. */
  noInit(): string;
}

/** The command that generates the CDI spec Podman needs to hand GPUs to containers (NVIDIA Container Toolkit). */
export const CDI_GENERATE = 'sudo nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml';
/** Starts the rootless API service now and at every login (systemd user units). */
export const ROOTLESS_SOCKET_START = 'systemctl --user enable --now podman.socket';
/** Starts the rootful API service (/run/podman/podman.sock). */
export const ROOTFUL_SOCKET_START = 'sudo systemctl enable --now podman.socket';
/** Without systemd: the API service by hand, on the rootless socket's usual path. */
export const ROOTLESS_SERVICE_BY_HAND = 'podman system service --time=0 unix://$XDG_RUNTIME_DIR/podman/podman.sock &';

const NO_INIT =
  'Podman cannot find its init binary (catatonit) to run as the container\'s PID 1. Install catatonit (sudo apt-get install catatonit, or sudo dnf install catatonit), or set init_path (e.g. "/usr/bin/tini-static") under [containers] in containers.conf';

function noGpu(where: string): string {
  return (
    `Podman ${where} gives GPUs to containers only through CDI, and it has no CDI spec for them. ` +
    `Generate one${where === 'on this computer' ? '' : ` ${where}`} (${CDI_GENERATE}, from the NVIDIA Container Toolkit; \`nvidia-ctk cdi list\` shows the result), ` +
    'then start again; or untick "GPUs" to start without them.'
  );
}

/** Podman on this computer (its rootful socket, the user's rootless one, or CONTAINER_HOST). */
export function localPodmanWording(rootless: boolean | null): PodmanWording {
  return {
    product: 'Podman',
    pullImage: (image) => `Pull it first (podman pull ${image}).`,
    unreachable: () =>
      rootless === false
        ? `Is Podman's API service running? Start it with ${ROOTFUL_SOCKET_START}, or point CONTAINER_HOST at a running one.`
        : `Is Podman's API service running for your user? Start it with ${ROOTLESS_SOCKET_START} (without systemd: ${ROOTLESS_SERVICE_BY_HAND}), or point CONTAINER_HOST at a running one.`,
    permissionDenied: () =>
      'The rootful Podman socket belongs to root: use your own rootless socket ($XDG_RUNTIME_DIR/podman/podman.sock), or give your user access to the rootful one.',
    noGpuRuntime: () => noGpu('on this computer'),
    noInit: () => `${NO_INIT}.`,
  };
}

/** Podman on a server reached over SSH: every command runs there, as `user` (rootless) or with sudo (rootful). */
export function sshPodmanWording(server: string, user: string, socket: { rootless: boolean; path?: string }): PodmanWording {
  return {
    product: 'Podman',
    pullImage: (image) => `Pull it on ${server} first (on ${server}: podman pull ${image}).`,
    unreachable: () => (socket.rootless ? rootlessServiceDown(server, user) : rootfulServiceDown(server, socket.path)),
    permissionDenied: () =>
      socket.rootless
        ? `The socket belongs to another user: on ${server}, ${user} can only use its own rootless Podman socket.`
        : `The rootful Podman socket on ${server} belongs to root: choose the rootless "user socket" of ${user} in the server's settings, or give ${user} access to it.`,
    noGpuRuntime: () => noGpu(`on ${server}`),
    noInit: () => `${NO_INIT} on ${server}.`,
  };
}

/** The rootless API service of `user` does not answer: how to start it, and keep it after logout. */
export function rootlessServiceDown(server: string, user: string): string {
  return (
    `The Podman API service is not running for ${user} on ${server}. Start it there as ${user}: ${ROOTLESS_SOCKET_START} ` +
    `(without systemd: ${ROOTLESS_SERVICE_BY_HAND}); \`sudo loginctl enable-linger ${user}\` keeps it running after ${user} logs out.`
  );
}

function rootfulServiceDown(server: string, path: string | undefined): string {
  return `Is Podman's API service running on ${server}${path ? `, with its socket at ${path}` : ''}? Start it there with ${ROOTFUL_SOCKET_START}; check with "podman info" on ${server}.`;
}
