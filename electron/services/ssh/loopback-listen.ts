import type net from 'node:net';
import { AppError } from '../../shared/errors';
import type { PortHolder } from '../../shared/port-holder';
import { describePortHolder, identifyPortHolder } from './port-holder';

/** How many ports after a taken one are tried (10086 → up to 10136). */
export const DEFAULT_PORT_SPAN = 50;
const PORT_MAX = 65_535;

export interface LoopbackBinding {
  /** The port asked for (0: any free port, chosen by the OS). */
  requestedPort: number;
  /** The port bound. */
  port: number;
  /** The requested port was taken, so a later one was used. */
  portWasTaken: boolean;
  /** Who holds the requested port, e.g. "python3 (pid 4242)"; null when the OS does not say. */
  portTakenBy: string | null;
  /** The same holder as data (the app's own dry run, or a process), for the renderer to word; null when unknown. */
  portHolder: PortHolder | null;
}

function listenOnce(server: net.Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => {
      server.removeListener('listening', onListening);
      reject(error);
    };
    const onListening = () => {
      server.removeListener('error', onError);
      resolve((server.address() as net.AddressInfo).port);
    };
    server.once('error', onError);
    server.once('listening', onListening);
    // Loopback only: the swarm API has no authentication, so it must not be reachable from the LAN.
    server.listen({ port, host: '127.0.0.1', exclusive: true });
  });
}

/**
 * Binds `server` to 127.0.0.1:`requestedPort`, or, when that port is taken, to the next free one
 * within `span` ports (like VS Code's port forwarding, and unlike tools that show a raw EADDRINUSE).
 * Fails with TUNNEL_FAILED naming the range, the holder of the requested port and the fix.
 */
export async function listenOnLoopback(server: net.Server, requestedPort: number, span = DEFAULT_PORT_SPAN): Promise<LoopbackBinding> {
  if (requestedPort === 0) {
    return { requestedPort, port: await listenOnce(server, 0), portWasTaken: false, portTakenBy: null, portHolder: null };
  }
  const last = Math.min(PORT_MAX, requestedPort + span);
  let found: PortHolder | null = null;
  for (let port = requestedPort; port <= last; port += 1) {
    try {
      const bound = await listenOnce(server, port);
      return { requestedPort, port: bound, portWasTaken: port !== requestedPort, portTakenBy: found ? describePortHolder(found) : null, portHolder: found };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'EADDRINUSE' && code !== 'EACCES') {
        throw new AppError('TUNNEL_FAILED', `Cannot listen on 127.0.0.1:${port} for the tunnel: ${(error as Error).message}.`, { cause: error });
      }
      // Only the requested port's holder matters to the user; later ones are just skipped.
      if (port === requestedPort) {
        found = await identifyPortHolder(port);
      }
    }
  }
  const by = found ? ` (${requestedPort} is held by ${describePortHolder(found)})` : '';
  throw new AppError(
    'TUNNEL_FAILED',
    `No local port for the tunnel: 127.0.0.1 ports ${requestedPort}–${last} are all taken${by}. Free port ${requestedPort}, or choose another local port in the server's settings.`,
  );
}
