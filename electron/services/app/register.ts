import { AppError } from '../../shared/errors';
import type { DomainModule, ServiceContext } from '../domain';

/** `app:*`: facts about the running app itself, and its log. */
export function registerApp(context: ServiceContext): DomainModule<'app'> {
  const { appLog, openPath } = context;
  return {
    handlers: {
      'app:info': async () => ({
        version: context.version,
        host: context.host,
        platform: process.platform,
        // A corrupt shell-state.json was moved aside and defaults loaded: the UI shows it like settings.json's notice.
        shellStore: context.shellStoreStatus?.() ?? null,
      }),
      // Lines are redacted again on the way out (`tail`), in case an older build wrote a secret.
      'app:log': async ({ lines }) => ({ path: appLog.path, lines: appLog.tail(lines), problem: appLog.problem, canOpen: openPath !== undefined }),
      'app:visibility': async ({ pageId, shown }) => ({ shown: context.visibility.report(pageId, shown) }),
      'app:open-log': async () => {
        if (!openPath) {
          throw new AppError(
            'LOG_UNAVAILABLE',
            `The browser host cannot open files on your desktop. The app log is ${appLog.path}: copy the path and open it in an editor.`,
          );
        }
        // Written first, so the file exists even on a first run with nothing logged yet.
        appLog.info('app log opened from Settings');
        try {
          await openPath(appLog.path);
        } catch (error) {
          throw new AppError(
            'LOG_UNAVAILABLE',
            `Could not open ${appLog.path} (${error instanceof Error ? error.message : String(error)}). Copy the path and open it in an editor.`,
            { cause: error },
          );
        }
        return { opened: true as const, path: appLog.path };
      },
    },
    dispose: () => context.visibility.dispose(),
  };
}
