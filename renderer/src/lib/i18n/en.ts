/**
 * English is the reference dictionary: its keys define `MessageKey`, and every other language must
 * provide the same keys (enforced by the type of `zh-CN.ts`). Keys are flat, dotted strings so a
 * missing or misspelled key is a compile error at the call site of `t()`.
 *
 * This file gathers every topic for the type and for tests; the app never imports it at run time: it loads
 * `en-common.ts` first and each page's topics with the page (topics.ts).
 */
import { enCommon } from './en-common';
import { enErrors } from './en-errors';
import { enDoctor } from './en-doctor';
import { enLogs } from './en-logs';
import { enProfiles } from './en-profiles';
import { enServers } from './en-servers';
import { enTraining } from './en-training';
import { enVault } from './en-vault';
import { enDryrun } from './en-dryrun';
import { enWizard } from './en-wizard';
import { enWizardRun } from './en-wizard-run';
import { enJobs } from './en-jobs';
import { enSlurm } from './en-slurm';
import { enServerState } from './en-server-state';
import { enBackend } from './en-backend';
import { enUpdates } from './en-updates';
import { enWorkers } from './en-workers';
import { enWorkersAdd } from './en-workers-add';
import { enFleet } from './en-fleet';
import { enRuns } from './en-runs';
import { enDiagnostics } from './en-diagnostics';
import { enDoctorFindings } from './en-doctor-findings';
import { enFleetAlerts } from './en-fleet-alerts';
import { enWorkerNotes } from './en-worker-notes';

export const en = {
  ...enServers,
  ...enProfiles,
  ...enDoctor,
  ...enLogs,
  ...enTraining,
  ...enVault,
  ...enDryrun,
  ...enWizard,
  ...enWizardRun,
  ...enJobs,
  ...enSlurm,
  ...enServerState,
  ...enBackend,
  ...enUpdates,
  ...enWorkers,
  ...enWorkersAdd,
  ...enFleet,
  ...enRuns,
  ...enDiagnostics,
  ...enDoctorFindings,
  ...enFleetAlerts,
  ...enWorkerNotes,
  ...enErrors,
  ...enCommon,
} as const;

export type MessageKey = keyof typeof en;
