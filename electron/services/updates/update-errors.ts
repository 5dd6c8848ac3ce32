import type { UpdateErrorCode } from '../../shared/schemas-updates';
import type { UpdaterErrorLike } from './updater-port';

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'CERT_HAS_EXPIRED']);

/**
 * Sorts an updater failure into the few cases the UI words differently. electron-updater's own
 * codes (builder-util-runtime `newError`) come first; its checksum failure has the code
 * ERR_CHECKSUM_MISMATCH and says "sha512 checksum mismatch".
 */
export function classifyUpdateError(error: unknown): UpdateErrorCode {
  const like = (typeof error === 'object' && error !== null ? error : {}) as UpdaterErrorLike;
  const code = typeof like.code === 'string' ? like.code : '';
  const message = typeof like.message === 'string' ? like.message : String(error);
  if (code === 'ERR_CHECKSUM_MISMATCH' || /checksum mismatch/i.test(message)) return 'checksum-mismatch';
  if (code === 'ERR_UPDATER_INVALID_SIGNATURE' || /not signed by the application owner/i.test(message)) return 'signature-invalid';
  if (code === 'ERR_UPDATER_CHANNEL_FILE_NOT_FOUND' || code === 'ERR_UPDATER_LATEST_VERSION_NOT_FOUND' || code === 'ERR_UPDATER_INVALID_UPDATE_INFO') return 'feed-missing';
  if (like.statusCode === 404) return 'feed-missing';
  if (NETWORK_CODES.has(code) || (typeof like.statusCode === 'number' && like.statusCode >= 500)) return 'network';
  if (code === 'ERR_UPDATER_INSTALL_FAILED') return 'install-failed';
  return 'unknown';
}

/** The updater's message for the log and the UI's "details": one line, bounded (a feed may echo a whole HTML page). */
export function updateErrorMessage(error: unknown): string {
  const raw = error instanceof Error ? error.message : String(error);
  const firstLine = raw.split('\n')[0] ?? '';
  return firstLine.length > 300 ? `${firstLine.slice(0, 299)}…` : firstLine;
}
