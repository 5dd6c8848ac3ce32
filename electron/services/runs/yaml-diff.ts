import { diffLines } from 'diff';
import type { DiffRow } from '../../shared/schemas-runs';

/** Most rows a side-by-side diff sends (a Hydra config is a few thousand lines; unchanged stretches fold). */
export const MAX_DIFF_ROWS = 4000;
/** Unchanged lines kept around each change; longer unchanged stretches become one "same" row that says how many. */
const CONTEXT = 3;

function linesOf(value: string): string[] {
  const lines = value.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

/**
 * Two YAML texts side by side: removed lines opposite added ones (as "changed" rows), unchanged stretches cut
 * to their context lines. Line numbers are each side's own (1-based).
 */
export function sideBySide(left: string, right: string): { rows: DiffRow[]; changed: number } {
  const rows: DiffRow[] = [];
  let leftLine = 1;
  let rightLine = 1;
  let changed = 0;
  const parts = diffLines(left, right);
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    const lines = linesOf(part.value);
    if (!part.added && !part.removed) {
      let keepHead = i === 0 ? 0 : CONTEXT;
      let keepTail = i === parts.length - 1 ? 0 : CONTEXT;
      // A fold of fewer than two lines saves nothing: such a stretch is shown whole.
      if (lines.length - keepHead - keepTail < 2) [keepHead, keepTail] = [lines.length, 0];
      lines.forEach((line, j) => {
        const inContext = j < keepHead || j >= lines.length - keepTail;
        if (inContext) rows.push({ kind: 'same', count: 1, left: line, right: line, leftLine: leftLine + j, rightLine: rightLine + j });
        else if (j === keepHead) rows.push({ kind: 'folded', count: lines.length - keepHead - keepTail, left: null, right: null, leftLine: leftLine + j, rightLine: rightLine + j });
      });
      leftLine += lines.length;
      rightLine += lines.length;
      continue;
    }
    const next = parts[i + 1];
    if (part.removed && next?.added) {
      const added = linesOf(next.value);
      const n = Math.max(lines.length, added.length);
      for (let j = 0; j < n; j++) {
        const l = lines[j] ?? null;
        const r = added[j] ?? null;
        rows.push({ kind: l !== null && r !== null ? 'changed' : l !== null ? 'removed' : 'added', count: 1, left: l, right: r, leftLine: l !== null ? leftLine + j : null, rightLine: r !== null ? rightLine + j : null });
      }
      changed += n;
      leftLine += lines.length;
      rightLine += added.length;
      i += 1;
      continue;
    }
    for (const [j, line] of lines.entries()) {
      if (part.removed) rows.push({ kind: 'removed', count: 1, left: line, right: null, leftLine: leftLine + j, rightLine: null });
      else rows.push({ kind: 'added', count: 1, left: null, right: line, leftLine: null, rightLine: rightLine + j });
    }
    changed += lines.length;
    if (part.removed) leftLine += lines.length;
    else rightLine += lines.length;
  }
  return { rows: rows.slice(0, MAX_DIFF_ROWS), changed };
}
