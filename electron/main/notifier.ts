import { Notification } from 'electron';
import type { Notifier } from '../services/notifier';
import type { Logger } from '../services/util/logger';
import type { AppNotification } from '../shared/schemas-profiles';

export interface ElectronNotifierOptions {
  /** A click on a notification (e.g. bring the window forward). */
  onClick?: (notification: AppNotification) => void;
  logger?: Logger;
}

/**
 * Desktop notifications through Electron's `Notification` (the services stay free of `electron`).
 * Where the system has none (`isSupported()` false: e.g. Linux without a notification daemon), it
 * says so once in the log and drops them: the dashboard shows the same states anyway.
 */
export function electronNotifier(options: ElectronNotifierOptions = {}): Notifier {
  // Held until closed or clicked: a notification that is garbage-collected loses its click handler.
  const showing = new Set<Notification>();
  let saidUnsupported = false;
  return {
    notify(notification) {
      if (!Notification.isSupported()) {
        if (!saidUnsupported) options.logger?.info?.('desktop notifications are not supported on this system', { kind: notification.kind });
        saidUnsupported = true;
        return;
      }
      const shown = new Notification({ title: notification.title, body: notification.body });
      showing.add(shown);
      shown.on('click', () => {
        showing.delete(shown);
        options.onClick?.(notification);
      });
      shown.on('close', () => showing.delete(shown));
      shown.show();
    },
  };
}
