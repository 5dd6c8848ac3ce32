import type { JsonStoreMigration, JsonStoreVersioning } from '../util/json-store';

/**
 * The history of settings.json. Version 1 is the file as the first releases wrote it (no `version`
 * field). A change of shape adds a step here (`to: 3`, …) and a test in
 * test/unit/services/settings-migrations.spec.ts that loads a file of every earlier version.
 */
const MIGRATIONS: readonly JsonStoreMigration[] = [
  {
    to: 2,
    describe: 'v2: the file carries its version; sections unchanged',
    // Nothing to move: v2 only starts numbering, so later steps (profiles and servers are about
    // to grow) have a version to start from.
    up: (raw) => raw,
  },
];

export const SETTINGS_VERSIONING: JsonStoreVersioning = { current: 2, migrations: MIGRATIONS };
