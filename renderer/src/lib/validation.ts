import { ImageRef, Port } from '../../../electron/shared/schemas';
import type { MessageKey } from './i18n';

/**
 * Client-side checks for the swarm form fields. They reuse the shared zod schemas, so the UI
 * refuses exactly what the backend would refuse, but answer with a translatable message key.
 */
export function checkImage(image: string): MessageKey | null {
  if (image.trim() === '') return 'validation.imageRequired';
  return ImageRef.safeParse(image).success ? null : 'validation.imageFormat';
}

/** Parses a port typed as text; only plain digits count, so "80.5" or "1e4" are refused. */
export function parsePort(text: string): number | null {
  const trimmed = String(text).trim();
  if (!/^\d{1,5}$/.test(trimmed)) return null;
  const port = Number(trimmed);
  return Port.safeParse(port).success ? port : null;
}

export function parseShmSize(text: string): number | null {
  const trimmed = String(text).trim();
  if (!/^\d{1,4}$/.test(trimmed)) return null;
  const size = Number(trimmed);
  return size >= 1 && size <= 1024 ? size : null;
}
