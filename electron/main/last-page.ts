import type { WebContents } from 'electron';
import { ShellState, type ShellStore } from './shell-store';

/**
 * The last page the user looked at. The renderer keeps its page in the fragment (`#page=jobs`,
 * renderer/src/lib/page-in-url.ts); fragment changes are in-page navigations, which the main
 * process sees without any IPC channel, and the window is opened at the remembered one.
 */

const PAGE_PARAM = 'page';

/** The page of an app URL's fragment, if it is a well-formed page id (anything else is ignored). */
export function pageOfUrl(url: string): string | null {
  let hash: string;
  try {
    hash = new URL(url).hash;
  } catch {
    return null;
  }
  const page = new URLSearchParams(hash.replace(/^#/, '')).get(PAGE_PARAM);
  return ShellState.shape.lastPage.safeParse(page).success ? page : null;
}

/** The URL to open the UI at: the remembered page in the fragment (the fragment is never sent to the app:// handler). */
export function urlAtPage(url: string, page: string | null): string {
  return page ? `${url}#${PAGE_PARAM}=${encodeURIComponent(page)}` : url;
}

export function rememberLastPage(contents: Pick<WebContents, 'on'>, shell: ShellStore): void {
  contents.on('did-navigate-in-page', (_event, url, isMainFrame) => {
    if (!isMainFrame) return;
    const page = pageOfUrl(url);
    if (page === null || page === shell.get().lastPage) return;
    try {
      shell.set('lastPage', page);
    } catch {
      // Losing the last page costs one click at the next launch; not worth an error.
    }
  });
}
