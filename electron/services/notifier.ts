import type { AppNotification } from '../shared/schemas-profiles';
import type { EventSink } from './events';

/**
 * Shows a desktop notification. Electron injects one built on `Notification` (main/notifier.ts);
 * without one, the notification goes to the page as `app:notification`, which the browser host's
 * page shows with the Notifications API.
 */
export interface Notifier {
  notify(notification: AppNotification): void;
}

export function eventNotifier(events: EventSink): Notifier {
  return { notify: (notification) => events.emit('app:notification', notification) };
}
