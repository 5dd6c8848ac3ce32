/**
 * Versioned JSON objects (settings.json through JsonStore, the Electron shell's own store): a
 * `version` field and the steps that bring an older object up to the current version. An object
 * without `version` is version 1, the shape before versions existed.
 */

/** One step of a file's history: turns a version `to - 1` object into a version `to` object. */
export interface Migration {
  to: number;
  /** What changed, for the log ("v2: the version field"). */
  describe: string;
  /** Gets a copy of the object; unknown keys should be passed through, not dropped. */
  up(raw: Record<string, unknown>): Record<string, unknown>;
}

export interface Versioning {
  current: number;
  /** Exactly one step for each version 2…current, in order. */
  migrations: readonly Migration[];
}

/** The key of the object's version number (absent = version 1). */
export const VERSION_KEY = 'version';

/** The object's `version`; absent or not a positive whole number → 1 (files from before versions). */
export function versionOf(raw: Record<string, unknown>): number {
  const version = raw[VERSION_KEY];
  return typeof version === 'number' && Number.isInteger(version) && version >= 1 ? version : 1;
}

/** A programming error, caught by the first test that builds the store: a gap or a step out of order. */
export function assertMigrationChain({ current, migrations }: Versioning): void {
  const expected = Array.from({ length: Math.max(0, current - 1) }, (_, i) => i + 2);
  const actual = migrations.map((m) => m.to);
  if (JSON.stringify(expected) !== JSON.stringify(actual)) {
    throw new Error(`migrations must produce versions ${expected.join(', ') || '(none)'} in order; got ${actual.join(', ') || '(none)'}`);
  }
}

export type MigrationOutcome =
  | { kind: 'current'; value: Record<string, unknown> }
  /** Written by a newer app: read as it is (unknown keys kept), its version number kept on write. */
  | { kind: 'newer'; value: Record<string, unknown>; from: number }
  | { kind: 'migrated'; value: Record<string, unknown>; from: number; steps: string[] }
  | { kind: 'failed'; from: number; detail: string };

/** Brings an older object up to `versioning.current` step by step, on a copy. Never throws. */
export function migrate(raw: Record<string, unknown>, versioning: Versioning): MigrationOutcome {
  const from = versionOf(raw);
  if (from === versioning.current) return { kind: 'current', value: raw };
  if (from > versioning.current) return { kind: 'newer', value: raw, from };
  const steps = versioning.migrations.filter((m) => m.to > from);
  let value = structuredClone(raw);
  try {
    for (const step of steps) value = { ...step.up(value), [VERSION_KEY]: step.to };
  } catch (error) {
    // A bug in a step must not cost the user the file: the caller leaves it as it is.
    const message = error instanceof Error ? error.message : String(error);
    return { kind: 'failed', from, detail: `could not bring it from version ${from} to ${versioning.current} (${message})` };
  }
  return { kind: 'migrated', value, from, steps: steps.map((s) => s.describe) };
}
