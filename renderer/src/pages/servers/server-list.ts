import type { EngineSummary } from '../../../../electron/shared/schemas';
import type { LinkState, ServerView } from '../../../../electron/shared/schemas-servers';
import type { ServerState } from '../../../../electron/shared/server-state';
import { t } from '../../lib/i18n';
import { isLive } from '../../lib/server-words';
import { engineTitle, productOfKind } from './engine-label';

/**
 * One row of the Servers page's list (issue 32): a place swarm servers run — an engine of this
 * computer, the dry run, or an SSH server — with the swarm servers the backend's one state model
 * (`ServerState`, issue 31) lists for its engine. The rows only select; the detail view below them
 * shows the selected place with the existing cards.
 */
export interface ServerListRow {
  /** `engine:<id>`, `dry-run` or `ssh:<server id>`: stable across reloads, used as the selection. */
  id: string;
  kind: 'engine' | 'dry-run' | 'ssh';
  label: string;
  /** What the row says under its label: the SSH address or the engine's endpoint. */
  where: string | null;
  /** The engine whose swarm servers the row counts (null while the dry run's engine is not listed). */
  engineId: string | null;
  /** Its swarm servers' states, the one to show first first. */
  servers: ServerState[];
  /** An SSH server's link; null for the others. */
  link: LinkState | null;
  /** An SSH server's connection waits for the user (a host key or a secret). */
  waiting: boolean;
}

/** How much a state asks to be seen: running servers first, then queued, then the rest; newest first within. */
function weight(state: ServerState): number {
  if (isLive(state)) return 0;
  if (state.phase === 'queued' || state.phase === 'not-started') return 1;
  return 2;
}

function ordered(states: ServerState[]): ServerState[] {
  return [...states].sort((a, b) => weight(a) - weight(b) || b.phaseSince.localeCompare(a.phaseSince));
}

/**
 * The rows, in the order a newcomer needs them: this computer's engines, the dry run (the first
 * debug needs no GPU), then the SSH servers in the order they were added.
 */
export function serverListRows(engines: EngineSummary[], servers: ServerView[], states: Record<string, ServerState>): ServerListRow[] {
  const all = Object.values(states);
  const of = (engineId: string | null) => (engineId === null ? [] : ordered(all.filter((s) => s.engineId === engineId)));
  const serverEngines = new Set(servers.map((view) => view.engineId));
  const rows: ServerListRow[] = [];
  for (const engine of engines) {
    if (serverEngines.has(engine.id) || engine.kind === 'dry-run') continue;
    rows.push({
      id: `engine:${engine.id}`,
      kind: 'engine',
      label: engineTitle(productOfKind(engine.kind), { engineLabel: engine.label }),
      where: engine.endpoint,
      engineId: engine.id,
      servers: of(engine.id),
      link: null,
      waiting: false,
    });
  }
  const dryRunEngine = engines.find((engine) => engine.kind === 'dry-run')?.id ?? null;
  rows.push({ id: 'dry-run', kind: 'dry-run', label: t('dryrun.title'), where: null, engineId: dryRunEngine, servers: of(dryRunEngine), link: null, waiting: false });
  for (const view of servers) {
    rows.push({
      id: `ssh:${view.profile.id}`,
      kind: 'ssh',
      label: view.profile.label,
      where: `${view.profile.username}@${view.profile.host}`,
      engineId: view.engineId,
      servers: of(view.engineId),
      link: view.state,
      waiting: view.hostKey !== null || view.prompt !== null,
    });
  }
  return rows;
}

/**
 * The row shown before the user chose one: where a swarm server runs now, else the first SSH
 * server (a GPU server someone added is what they came to see), else the first row.
 */
export function defaultRow(rows: ServerListRow[]): ServerListRow | null {
  return rows.find((row) => row.servers.some(isLive)) ?? rows.find((row) => row.kind === 'ssh') ?? rows[0] ?? null;
}

/**
 * The row to show: the chosen one while it exists, else the default. (A removed SSH server's row
 * goes; the page then shows another row instead of an empty detail.)
 */
export function shownRow(rows: ServerListRow[], chosen: string | null): ServerListRow | null {
  return rows.find((row) => row.id === chosen) ?? defaultRow(rows);
}
