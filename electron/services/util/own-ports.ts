/**
 * The loopback ports this backend process listens on for the user's servers, by what holds them. The OS would name
 * the holder "node (pid <ours>)", which tells a user nothing (it is the app itself): checks that find a port taken ask
 * here first. Process-wide on purpose: a port belongs to the process, whichever service object bound it.
 */
export type OwnPortKind = 'app-dry-run';

const held = new Map<number, OwnPortKind>();

/** Records that this process now listens on `port`; returns the release for when it stops listening. */
export function claimOwnPort(port: number, kind: OwnPortKind): () => void {
  held.set(port, kind);
  return () => {
    // A later claim of the same port (a restarted dry run) is not undone by an earlier run's release.
    if (held.get(port) === kind) held.delete(port);
  };
}

export function ownPortKind(port: number): OwnPortKind | null {
  return held.get(port) ?? null;
}
