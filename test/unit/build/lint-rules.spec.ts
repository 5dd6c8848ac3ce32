/**
 * The layering rules of eslint.config.js, proven to fire: each snippet is linted with the project's
 * real config (ESLint's API, as `npm run lint` runs it) under a path in the layer it tests. The
 * snippets are never written to disk; type-aware rules are switched off for them because they are
 * not part of the TypeScript project, which the import rules do not need.
 */
import { resolve } from 'node:path';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../../..');
const eslint = new ESLint({
  cwd: root,
  overrideConfig: [tseslint.configs.disableTypeChecked],
});

/** The `no-restricted-imports` messages ESLint reports for `source` as if it lived at `file`. */
async function restrictedImports(file: string, source: string): Promise<string[]> {
  const [result] = await eslint.lintText(source, { filePath: resolve(root, file) });
  if (!result) throw new Error(`ESLint returned no result for ${file}`);
  const fatal = result.messages.filter((m) => m.fatal);
  if (fatal.length > 0) throw new Error(`${file} did not parse: ${fatal.map((m) => m.message).join('; ')}`);
  return result.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

const use = (specifier: string) => `import * as m from '${specifier}';\nexport const used = m;\n`;

// ESLint with the project's real config (typescript-eslint, the Svelte parser) takes seconds for its first file; on a
// loaded two-core machine one lint ran past vitest's 5 s default.
describe('layering lint rules (eslint.config.js)', { timeout: 120_000 }, () => {
  const cases: { layer: string; file: string; forbidden: string[]; allowed: string[] }[] = [
    {
      layer: 'electron/shared imports nothing of ours outside shared/',
      file: 'electron/shared/lint-probe.ts',
      forbidden: [
        '../services/util/logger',
        '../main/boot',
        '../browser-host/server',
        '../preload/index',
        '../../renderer/src/lib/api',
        '../../test/support/helpers',
        'electron',
        'dockerode',
      ],
      allowed: ['./schemas', 'zod'],
    },
    {
      layer: 'electron/services never imports electron, main/, browser-host/ or test/',
      file: 'electron/services/swarm/lint-probe.ts',
      forbidden: [
        'electron',
        '../../main/boot',
        '../../browser-host/server',
        '../../preload/index',
        '../../../test/support/helpers',
        '../../../renderer/src/lib/api',
      ],
      allowed: ['../util/logger', '../../shared/schemas', 'node:fs', 'dockerode'],
    },
    {
      layer: 'the renderer never imports Node or the backend',
      file: 'renderer/src/lib/lint-probe.ts',
      forbidden: [
        'node:fs',
        'fs',
        'child_process',
        'electron',
        'dockerode',
        '../../../electron/services/app-services',
        '../../../electron/main/boot',
        '../../../electron/browser-host/server',
        '../../../electron/preload/index',
      ],
      allowed: ['../../../electron/shared/api', 'svelte'],
    },
  ];

  for (const { layer, file, forbidden, allowed } of cases) {
    describe(layer, () => {
      it.each(forbidden)(`refuses "%s" in ${file}`, async (specifier) => {
        const messages = await restrictedImports(file, use(specifier));
        expect(messages, specifier).toHaveLength(1);
      });

      it.each(allowed)(`allows "%s" in ${file}`, async (specifier) => {
        expect(await restrictedImports(file, use(specifier))).toEqual([]);
      });
    });
  }

  it('applies the renderer rules to Svelte components too', async () => {
    const component = `<script lang="ts">\n  import { readFileSync } from 'node:fs';\n  export const read = readFileSync;\n</script>\n`;
    expect(await restrictedImports('renderer/src/pages/LintProbe.svelte', component)).toHaveLength(1);
  });
});
