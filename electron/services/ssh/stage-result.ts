import type { ErrorCode } from '../../shared/errors';
import type { DiagnosticSay } from '../../shared/schemas-servers';

/**
 * What a "Test connection" stage found: pass with a detail, or a problem with its error and fix.
 * The English `detail`, error message and `fix` stay for logs and tests; `say`/`sayFix` carry the
 * same facts for the renderer's words (issue 32). A leaf file, so the remote checks and the runner
 * do not import each other.
 */
export interface StageResult {
  status: 'pass' | 'warn' | 'fail';
  detail: string | null;
  error?: { code: ErrorCode; message: string } | null;
  fix?: string | null;
  say?: DiagnosticSay;
  sayFix?: DiagnosticSay;
}

/** The facts of a stage's words: `diag.say.<key>` / `diag.sayFix.<key>` in the renderer. */
export function words(key: string, params: DiagnosticSay['params'] = {}): DiagnosticSay {
  return { key, params };
}
