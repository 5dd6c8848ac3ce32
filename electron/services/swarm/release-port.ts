import { LABEL_PORT, type ContainerEngine, type ContainerSummary } from '../engines/container-engine';
import { SWARM_LABELS } from './swarm-spec';

/**
 * The server on this port is gone: let the engine close what it opened to reach it (a remote
 * engine's tunnel), unless another of our containers still runs on that port. Never fails the
 * stop or remove that called it: the container is already gone.
 */
export async function releaseSwarmPort(engine: ContainerEngine, container: ContainerSummary): Promise<void> {
  if (!engine.releaseHostPort) return;
  const port = Number(container.labels[LABEL_PORT]);
  if (!Number.isInteger(port)) return;
  try {
    const others = await engine.listContainers({ ...SWARM_LABELS, [LABEL_PORT]: String(port) });
    if (others.some((c) => c.id !== container.id && c.state === 'running')) return;
    await engine.releaseHostPort(port);
  } catch {
    // Keeping an idle tunnel open is harmless; failing a stop that succeeded is not.
  }
}
