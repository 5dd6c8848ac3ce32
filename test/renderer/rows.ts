import { fireEvent, screen, waitFor } from '@testing-library/svelte';

/** The Servers page's row for one container, found by its id once the list has rendered. */
export async function rowFor(containerId: string): Promise<HTMLElement> {
  const rows = await screen.findAllByTestId('swarm-container-row');
  const row = rows.find((r) => r.dataset.containerId === containerId);
  if (!row) throw new Error(`no row for ${containerId}`);
  return row;
}

/**
 * Shows one place in the Servers page's detail view by clicking its row in the list (issue 32):
 * `engine:<id>`, `dry-run` or `ssh:<server id>`.
 */
export async function showServer(rowId: string): Promise<HTMLElement> {
  const rows = await screen.findAllByTestId('server-row');
  let row = rows.find((r) => r.dataset.row === rowId);
  if (!row) {
    // The list follows the backend's answers: the row may come a moment later.
    row = await waitFor(() => {
      const found = screen.getAllByTestId('server-row').find((r) => r.dataset.row === rowId);
      if (!found) throw new Error(`no server row ${rowId}`);
      return found;
    });
  }
  await fireEvent.click(row);
  return waitFor(() => {
    const detail = screen.getByTestId('server-detail');
    if (detail.dataset.row !== rowId) throw new Error(`detail shows ${detail.dataset.row}, not ${rowId}`);
    return detail;
  });
}
