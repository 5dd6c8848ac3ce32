import { net, powerMonitor } from 'electron';

export interface SystemResumeOptions {
  /** How often we look whether the machine went from offline to online (Electron has no event for it). Default 2 s. */
  onlinePollMs?: number;
}

/**
 * Calls `onResume` when the computer wakes from sleep, the screen is unlocked, or the network comes
 * back: SSH links may be dead then without knowing it (keepalives would take 45 s to tell). Thin on
 * purpose: the services decide what to check. Returns the teardown.
 */
export function watchSystemResume(onResume: () => void, options: SystemResumeOptions = {}): () => void {
  const resume = (): void => onResume();
  powerMonitor.on('resume', resume);
  powerMonitor.on('unlock-screen', resume);
  let online = net.isOnline();
  const timer = setInterval(() => {
    const now = net.isOnline();
    if (now && !online) onResume();
    online = now;
  }, options.onlinePollMs ?? 2000);
  timer.unref?.();
  return () => {
    clearInterval(timer);
    powerMonitor.removeListener('resume', resume);
    powerMonitor.removeListener('unlock-screen', resume);
  };
}
