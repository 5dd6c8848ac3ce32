import { AppError } from '../../shared/errors';
import type { PortHolder } from '../../shared/port-holder';

/**
 * How one engine words the fixes in its error messages. Error codes and swarm logic are
 * engine-neutral and never name a tool; each engine passes its own wording in its options, so
 * local Docker says "docker pull", a Podman engine "podman pull", an SSH engine "on the server".
 * Every function returns whole sentences, ending with a full stop.
 */
export interface EngineWording {
  /** The engine's own name in messages: "Docker", "Podman", "Slurm". */
  readonly product: string;
  /** How to get a missing image onto this engine, e.g. "Pull it first (docker pull x)." */
  pullImage(image: string): string;
  /** What to check when the engine does not answer, after "Cannot reach <product> at <endpoint>". */
  unreachable(endpoint: string): string;
  /** How the user gets permission to use the engine. */
  permissionDenied(endpoint: string): string;
  /** Why the engine cannot give GPUs to containers, and what to do. */
  noGpuRuntime(): string;
}

/** The image is not on the engine: a neutral sentence plus the engine's own fix. */
export function imageNotFound(image: string, wording: EngineWording): AppError {
  return new AppError('IMAGE_NOT_FOUND', `Image ${image} is not on this engine. ${wording.pullImage(image)} Or check the image name.`);
}

/**
 * The port is taken on the engine's host; the same words for every engine. `holder` (when known) rides along as data:
 * `params.holder` is its kind, so the renderer says "the app's dry run holds port 10086" instead of "node (pid …)".
 */
export function portInUse(port: number | undefined, detail?: string, holder?: PortHolder | null): AppError {
  const which = port === undefined ? 'The port' : `Port ${port}`;
  const fix = holder?.kind === 'app-dry-run' ? "Stop the app's dry run, or choose another port." : 'Stop whatever uses it, or choose another port.';
  const params = holder ? { holder: holder.kind, port: holder.port, ...(holder.kind === 'process' ? { command: holder.command, pid: holder.pid } : {}) } : undefined;
  return new AppError('PORT_IN_USE', `${which} is already in use on the engine's host${detail ? ` (${detail})` : ''}. ${fix}`, params ? { params } : undefined);
}
