import type Docker from 'dockerode';
import { AppError } from '../../shared/errors';
import type { ContainerEvent, FollowLogOptions } from './container-engine';

// PLACEHOLDERS (issue 13, logs helper replaces them): follow, events, file reads through the Docker API.
export async function followDockerLog(_docker: Docker, id: string, _options: FollowLogOptions, _fail: (error: unknown) => AppError): Promise<void> {
  throw new AppError('INTERNAL', `Following the log of ${id} is not built yet.`);
}

export function watchDockerEvents(_docker: Docker, _labels: Record<string, string>, _onEvent: (event: ContainerEvent) => void): () => void {
  return () => undefined;
}

export async function readDockerContainerFile(_docker: Docker, id: string, path: string, _maxBytes: number, _fail: (error: unknown) => AppError): Promise<string | null> {
  throw new AppError('INTERNAL', `Reading ${path} in ${id} is not built yet.`);
}
