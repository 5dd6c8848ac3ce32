import type { BrowserWindow, Rectangle } from 'electron';
import type { WindowState } from './shell-store';

/** How much of the window must lie on a display to count as reachable: enough to grab its title bar. */
const MIN_VISIBLE_WIDTH = 120;
const MIN_VISIBLE_HEIGHT = 40;

function overlap(a: Rectangle, b: Rectangle): { width: number; height: number } {
  const width = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
  const height = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  return { width: Math.max(0, width), height: Math.max(0, height) };
}

/**
 * Where to open the window: the saved bounds when their top strip (the title bar) lies on one of
 * today's displays' work areas — a monitor unplugged since, or a resolution change, would
 * otherwise leave the window off-screen — else none (Electron centres the default size on the
 * primary display). A saved size larger than that display's work area is shrunk to fit.
 */
export function restoredBounds(saved: WindowState | null, workAreas: readonly Rectangle[]): { bounds: Rectangle | null; maximized: boolean } {
  if (!saved) return { bounds: null, maximized: false };
  const titleBar: Rectangle = { x: saved.x, y: saved.y, width: saved.width, height: MIN_VISIBLE_HEIGHT };
  const area = workAreas.find((a) => {
    const seen = overlap(titleBar, a);
    return seen.width >= Math.min(MIN_VISIBLE_WIDTH, saved.width) && seen.height >= MIN_VISIBLE_HEIGHT;
  });
  if (!area) return { bounds: null, maximized: saved.maximized };
  return {
    bounds: { x: saved.x, y: saved.y, width: Math.min(saved.width, area.width), height: Math.min(saved.height, area.height) },
    maximized: saved.maximized,
  };
}

type TrackedWindow = Pick<BrowserWindow, 'on' | 'getNormalBounds' | 'isMaximized' | 'isDestroyed'>;

/**
 * Saves the window's normal (not maximized) bounds and whether it is maximized: after moves and
 * resizes have been quiet for `delayMs` (a drag fires dozens of events; each save is a file write),
 * and at once on close so the last move is never lost. Returns a function that stops tracking.
 */
export function trackWindowState(window: TrackedWindow, save: (state: WindowState) => void, delayMs = 500): () => void {
  let timer: NodeJS.Timeout | undefined;
  const snapshot = (): void => {
    clearTimeout(timer);
    timer = undefined;
    if (window.isDestroyed()) return;
    const { x, y, width, height } = window.getNormalBounds();
    save({ x: Math.round(x), y: Math.round(y), width: Math.round(width), height: Math.round(height), maximized: window.isMaximized() });
  };
  const later = (): void => {
    clearTimeout(timer);
    timer = setTimeout(snapshot, delayMs);
  };
  for (const event of ['move', 'resize', 'maximize', 'unmaximize'] as const) window.on(event as 'move', later);
  window.on('close', snapshot);
  return () => clearTimeout(timer);
}
