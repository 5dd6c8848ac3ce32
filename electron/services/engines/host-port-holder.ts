import type { PortHolder } from '../../shared/port-holder';
import { identifyPortHolder } from '../ssh/port-holder';
import type { ContainerEngine } from './container-engine';

/**
 * Who holds `port` on the engine's host, when that host is this computer (local Docker or Podman, native runs, the
 * dry run): the app's own dry run or a process. Null for a remote host (this computer's listeners say nothing about
 * it) and when the OS does not tell. Never throws: naming the holder is a courtesy.
 */
export async function hostPortHolder(engine: Pick<ContainerEngine, 'host' | 'summary'>, port: number): Promise<PortHolder | null> {
  const local = engine.host?.kind === 'local' || engine.summary.kind === 'dry-run';
  if (!local) return null;
  return identifyPortHolder(port).catch(() => null);
}
