import { PORT_MAX, PORT_MIN, SHM_GB_MAX, SHM_GB_MIN } from '../../../electron/shared/defaults';
import { ImageRef, Port, ShmSizeGb } from '../../../electron/shared/schemas';
import type { MessageKey } from './i18n';

/**
 * Client-side checks for the swarm form fields. They reuse the shared zod schemas and limits, so
 * the UI refuses exactly what the backend would refuse, but answer with a translatable message key.
 */
export function checkImage(image: string): MessageKey | null {
  if (image.trim() === '') return 'validation.imageRequired';
  return ImageRef.safeParse(image).success ? null : 'validation.imageFormat';
}

/** The limits the validation messages quote, so their numbers come from the same place. */
export const limitParams = { portMin: PORT_MIN, portMax: PORT_MAX, shmMin: SHM_GB_MIN, shmMax: SHM_GB_MAX };

/** Parses a whole number typed as text; only plain digits count, so "80.5" or "1e4" are refused. */
function parseWhole(text: string): number | null {
  const trimmed = String(text).trim();
  return /^\d{1,6}$/.test(trimmed) ? Number(trimmed) : null;
}

export function parsePort(text: string): number | null {
  const port = parseWhole(text);
  return port !== null && Port.safeParse(port).success ? port : null;
}

export function parseShmSize(text: string): number | null {
  const size = parseWhole(text);
  return size !== null && ShmSizeGb.safeParse(size).success ? size : null;
}
