import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const require = createRequire(import.meta.url);

/** axe-core's browser bundle, read once. It is evaluated in the page, not added as a <script>: the page's CSP forbids inline scripts. */
const axeSource = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string; summary: string }[];
}

/** The WCAG 2.0/2.1 A and AA rules plus axe's best practices: what the audit ran. */
const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'];

/** Runs axe-core on the whole page as it is now and returns its violations (empty when clean). */
export async function runAxe(page: Page): Promise<AxeViolation[]> {
  const loaded = await page.evaluate(() => typeof (window as unknown as { axe?: unknown }).axe === 'object');
  if (!loaded) await page.evaluate(axeSource);
  return page.evaluate(async (tags) => {
    const axe = (window as unknown as { axe: { run: (context: Document, options: object) => Promise<AxeResults> } }).axe;
    interface AxeResults {
      violations: {
        id: string;
        impact: string | null;
        help: string;
        nodes: { target: unknown[]; failureSummary?: string }[];
      }[];
    }
    const results = await axe.run(document, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] });
    return results.violations.map((violation) => ({
      id: violation.id,
      impact: violation.impact,
      help: violation.help,
      nodes: violation.nodes.map((node) => ({ target: node.target.map(String).join(' '), summary: node.failureSummary ?? '' })),
    }));
  }, TAGS);
}

/** Violations as readable lines, so a failing test says what to fix and where. */
export function formatViolations(where: string, violations: AxeViolation[]): string {
  if (violations.length === 0) return `${where}: no violations`;
  const lines = [`${where}: ${violations.length} axe violation(s)`];
  for (const violation of violations) {
    lines.push(`- ${violation.id} (${violation.impact ?? 'n/a'}): ${violation.help}`);
    for (const node of violation.nodes.slice(0, 5)) {
      lines.push(`    at ${node.target}`);
      for (const line of node.summary.split('\n')) lines.push(`      ${line}`);
    }
  }
  return lines.join('\n');
}

/**
 * axe in both colour schemes (dialogs and badges bring colours of their own); any violations are
 * appended to `reports` as readable text, and the page is left in the light scheme.
 */
export async function auditBothSchemes(page: Page, where: string, reports: string[]): Promise<void> {
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    const violations = await runAxe(page);
    if (violations.length > 0) reports.push(formatViolations(`${where} (${colorScheme})`, violations));
  }
  await page.emulateMedia({ colorScheme: 'light' });
}
