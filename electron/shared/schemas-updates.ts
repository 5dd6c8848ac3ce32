import { z } from 'zod';

/**
 * Auto-update (issue 35). The backend sends the updater's state as data; the renderer words it.
 * `unsupported` says why this copy cannot update itself (the reason picks the sentence shown).
 */
export const UpdateUnsupportedReason = z.enum([
  /** `npm run web`: the page is served by a Node process, there is no installed app to replace. */
  'browser-host',
  /** `npm start` / `electron-vite dev`: an unpackaged app has no update feed. */
  'not-packaged',
  /** Installed from the .deb: apt (or the user's package manager) owns the files. */
  'deb',
]);
export type UpdateUnsupportedReason = z.infer<typeof UpdateUnsupportedReason>;

/** Why a check, download or install failed, in words the UI can translate. */
export const UpdateErrorCode = z.enum([
  /** The feed could not be reached (offline, DNS, TLS, HTTP 5xx). */
  'network',
  /** The feed answered but has no update metadata (latest*.yml) for this system. */
  'feed-missing',
  /** The downloaded file's SHA-512 differs from the one in latest*.yml: it was discarded. */
  'checksum-mismatch',
  /** Windows: the installer is not signed by the publisher this app was signed by. */
  'signature-invalid',
  /** The installer could not be started. */
  'install-failed',
  'unknown',
]);
export type UpdateErrorCode = z.infer<typeof UpdateErrorCode>;

const version = z.string().min(1).max(100);
/** Release notes as the feed has them (HTML or plain text, shown as text); capped so a huge feed cannot bloat every event. */
const notes = z.string().max(20_000).nullable();

export const UpdateState = z.discriminatedUnion('status', [
  z.object({ status: z.literal('unsupported'), reason: UpdateUnsupportedReason }),
  z.object({ status: z.literal('idle') }),
  z.object({ status: z.literal('checking') }),
  z.object({ status: z.literal('available'), version, notes, releaseDate: z.string().nullable() }),
  z.object({ status: z.literal('not-available'), checkedAt: z.string() }),
  z.object({
    status: z.literal('downloading'),
    version,
    notes,
    percent: z.number().min(0).max(100),
    transferred: z.number().nonnegative(),
    total: z.number().nonnegative(),
  }),
  z.object({ status: z.literal('ready'), version, notes }),
  z.object({ status: z.literal('error'), code: UpdateErrorCode, message: z.string().max(500) }),
]);
export type UpdateState = z.infer<typeof UpdateState>;

/** What `updates:state` answers and `updates:state-changed` carries. */
export const UpdatesView = z.object({ currentVersion: version, state: UpdateState });
export type UpdatesView = z.infer<typeof UpdatesView>;

export const UpdateInstallRequest = z.object({
  /** The user saw the running jobs named and chose to restart anyway (they are stopped by the restart). */
  confirmRunningJobs: z.boolean().default(false),
});

/** A job the restart would end, named for the confirmation. */
export const RunningJobRef = z.object({ jobId: z.string(), label: z.string() });
export type RunningJobRef = z.infer<typeof RunningJobRef>;

export const UpdateInstallAnswer = z.discriminatedUnion('restarting', [
  z.object({ restarting: z.literal(true) }),
  /** Nothing was done: these jobs run; ask the user, then send `confirmRunningJobs: true`. */
  z.object({ restarting: z.literal(false), runningJobs: z.array(RunningJobRef).min(1) }),
]);
export type UpdateInstallAnswer = z.infer<typeof UpdateInstallAnswer>;
