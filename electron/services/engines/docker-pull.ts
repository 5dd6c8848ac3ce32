import type Docker from 'dockerode';
import { AppError } from '../../shared/errors';
import type { PullEvent } from './container-engine';

// PLACEHOLDER (issue 13, pull helper replaces it): pulls through dockerode with per-layer events.
export async function pullDockerImage(
  _docker: Docker,
  image: string,
  _onEvent: (event: PullEvent) => void,
  _signal: AbortSignal,
  _fail: (error: unknown) => AppError,
): Promise<void> {
  throw new AppError('INTERNAL', `Pulling ${image} is not built yet.`);
}
