import { tick } from 'svelte';

/**
 * Moves focus to `target` when it was lost: the element that had it was removed or hidden by the
 * update that just ran (the pressed Stop button disappears once the server stopped; a dismissed
 * banner takes its button with it). Chromium then leaves focus on <body>, which throws keyboard and
 * screen-reader users back to the top of the page. Focus the user put elsewhere meanwhile is kept.
 */
export async function rescueFocus(target: () => HTMLElement | null | undefined): Promise<void> {
  await tick();
  const active = document.activeElement;
  if (active && active !== document.body && active.isConnected) return;
  target()?.focus();
}

/**
 * Svelte action for an inline question (the remove confirmations): Escape anywhere in it, on either
 * of its buttons, cancels it, as it would close a dialog. `use:escapeCancels={cancel}`.
 */
export function escapeCancels(node: HTMLElement, cancel: () => unknown): { update(next: () => unknown): void; destroy(): void } {
  let current = cancel;
  const onKey = (event: KeyboardEvent): void => {
    if (event.key !== 'Escape') return;
    event.preventDefault();
    void current();
  };
  node.addEventListener('keydown', onKey);
  return {
    update(next) {
      current = next;
    },
    destroy() {
      node.removeEventListener('keydown', onKey);
    },
  };
}
