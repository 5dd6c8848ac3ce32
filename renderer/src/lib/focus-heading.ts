/**
 * Moves keyboard focus to a heading that may not be rendered yet (a page that loads lazily, a
 * detail view that mounts after a click), so a keyboard or screen-reader user lands on the new
 * content instead of staying on the control that changed it (issue 32). `find` is asked on every
 * frame until it gives an element other than `previous`, for at most `timeoutMs`.
 * The heading gets tabindex="-1": focusable by script, never a Tab stop.
 */
export function focusHeadingWhenShown(find: () => HTMLElement | null, previous: HTMLElement | null = null, timeoutMs = 3000): void {
  const deadline = Date.now() + timeoutMs;
  const attempt = (): void => {
    const heading = find();
    if (heading && heading !== previous) {
      if (!heading.hasAttribute('tabindex')) heading.setAttribute('tabindex', '-1');
      heading.focus();
      return;
    }
    if (Date.now() < deadline) requestAnimationFrame(attempt);
  };
  attempt();
}

/** The main region's page heading (every page has one `h1`). */
export function mainHeading(): HTMLElement | null {
  return document.querySelector<HTMLElement>('main h1');
}
