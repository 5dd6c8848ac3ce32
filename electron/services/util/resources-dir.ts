import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The app's `resources/` folder (Python templates, probe scripts) when the host does not say:
 * the nearest ancestor of this module that holds `resources/templates` (the repository, both for
 * `npm run web`, tests and the unpackaged Electron app). A packaged Electron app passes
 * `process.resourcesPath` instead (electron-builder's extraResources put the folders there).
 */
export function defaultResourcesDir(start: string = dirname(fileURLToPath(import.meta.url))): string {
  let dir = start;
  for (;;) {
    const candidate = join(dir, 'resources');
    if (existsSync(join(candidate, 'templates'))) return candidate;
    const parent = dirname(dir);
    if (parent === dir) return join(process.cwd(), 'resources');
    dir = parent;
  }
}
