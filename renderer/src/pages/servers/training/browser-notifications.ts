import type { AppNotification } from '../../../../../electron/shared/schemas-profiles';

/**
 * The browser host's desktop notifications: the backend pushes `app:notification` (Electron shows
 * its own through the main process), and the page shows it with the Notifications API once the
 * user allowed it. A permission can only be asked for on a click, hence the control on the dashboard.
 */
export type NotificationPermissionState = 'unsupported' | 'default' | 'granted' | 'denied';

function api(): typeof Notification | null {
  return typeof globalThis.Notification === 'function' ? globalThis.Notification : null;
}

export function notificationPermission(): NotificationPermissionState {
  return api()?.permission ?? 'unsupported';
}

export async function requestNotificationPermission(): Promise<NotificationPermissionState> {
  const N = api();
  if (!N) return 'unsupported';
  return N.requestPermission();
}

/** Shows one notification if allowed; `tag` makes a repeat of the same event replace, not stack. */
export function showAppNotification(notification: AppNotification): boolean {
  const N = api();
  if (!N || N.permission !== 'granted') return false;
  new N(notification.title, { body: notification.body, tag: `${notification.engineId}:${notification.containerId}:${notification.kind}` });
  return true;
}
