import { screen } from '@testing-library/svelte';

/** The Servers page's row for one container, found by its id once the list has rendered. */
export async function rowFor(containerId: string): Promise<HTMLElement> {
  const rows = await screen.findAllByTestId('swarm-container-row');
  const row = rows.find((r) => r.dataset.containerId === containerId);
  if (!row) throw new Error(`no row for ${containerId}`);
  return row;
}
