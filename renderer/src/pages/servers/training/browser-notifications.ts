import type { AppNotification } from '../../../../../electron/shared/schemas-profiles';
import { t } from '../../../lib/i18n';

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
  const { title, body } = notificationWords(notification);
  new N(title, { body, tag: `${notification.engineId}:${notification.containerId}:${notification.kind}` });
  return true;
}

/** A server's end in the page's language, in the words of its badge (the backend's title and body are the desktop's English). */
export function notificationWords(notification: AppNotification): { title: string; body: string } {
  const end = notification.end;
  if (!end) return { title: notification.title, body: notification.body };
  const title = end.engineKind === 'slurm' ? t('notify.ended.titleSlurm', { id: notification.containerId }) : t('notify.ended.title', { name: end.name });
  const words = t(`end.${end.kind}`, { code: end.code ?? '?' });
  const body = end.line ? t('notify.ended.bodyLine', { name: end.name, end: words, line: end.line }) : t('notify.ended.body', { name: end.name, end: words });
  return { title, body };
}
