import { shell } from 'electron';

/**
 * Opens a file in the system's default viewer, for `app:open-log`. `shell.openPath` resolves to
 * an error text instead of rejecting (empty when it worked); turned into a rejection here so the
 * service can report it as `LOG_UNAVAILABLE`.
 */
export async function openPathInDesktop(path: string): Promise<void> {
  const failure = await shell.openPath(path);
  if (failure) throw new Error(failure);
}
