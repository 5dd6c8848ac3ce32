import type { BackendLink, BackendLinkMachine } from '../api';

/** How long "Reconnected" stays on screen before the banner goes away. */
export const RECOVERED_NOTICE_MS = 4000;

/**
 * The browser page's link to its backend as the banner shows it: the transport's state machine (lib/api/backend-link)
 * as a rune, with a countdown to the next try that moves each second, and "Retry now".
 */
export class BackendLinkState {
  link = $state<BackendLink>({ kind: 'connecting' });
  /** Epoch ms of the next try, while one is scheduled. */
  retryAt = $state<number | null>(null);
  /** "Reconnected" is still shown. */
  showRecovered = $state(false);

  constructor(
    private readonly machine: BackendLinkMachine,
    private readonly now: () => number = Date.now,
  ) {}

  start(): () => void {
    let hideTimer: ReturnType<typeof setTimeout> | undefined;
    const off = this.machine.subscribe((link) => {
      this.link = link;
      this.retryAt = link.kind === 'lost' && link.retryInMs !== null ? this.now() + link.retryInMs : null;
      clearTimeout(hideTimer);
      this.showRecovered = link.kind === 'connected' && link.recovered;
      if (this.showRecovered) hideTimer = setTimeout(() => (this.showRecovered = false), RECOVERED_NOTICE_MS);
    });
    return () => {
      clearTimeout(hideTimer);
      off();
    };
  }

  retryNow(): void {
    this.machine.retryNow();
  }
}
