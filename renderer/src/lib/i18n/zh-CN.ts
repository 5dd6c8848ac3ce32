import type { MessageKey } from './en';
import { zhCNCommon } from './zh-CN-common';
import { zhCNErrors } from './zh-CN-errors';
import { zhCNDoctor } from './zh-CN-doctor';
import { zhCNLogs } from './zh-CN-logs';
import { zhCNProfiles } from './zh-CN-profiles';
import { zhCNServers } from './zh-CN-servers';
import { zhCNTraining } from './zh-CN-training';
import { zhCNVault } from './zh-CN-vault';
import { zhCNDryrun } from './zh-CN-dryrun';
import { zhCNWizard } from './zh-CN-wizard';
import { zhCNWizardRun } from './zh-CN-wizard-run';
import { zhCNJobs } from './zh-CN-jobs';
import { zhCNSlurm } from './zh-CN-slurm';
import { zhCNServerState } from './zh-CN-server-state';
import { zhCNBackend } from './zh-CN-backend';
import { zhCNUpdates } from './zh-CN-updates';
import { zhCNWorkers } from './zh-CN-workers';
import { zhCNWorkersAdd } from './zh-CN-workers-add';
import { zhCNFleet } from './zh-CN-fleet';
import { zhCNRuns } from './zh-CN-runs';
import { zhCNDiagnostics } from './zh-CN-diagnostics';
import { zhCNDoctorFindings } from './zh-CN-doctor-findings';
import { zhCNFleetAlerts } from './zh-CN-fleet-alerts';
import { zhCNWorkerNotes } from './zh-CN-worker-notes';

/**
 * Simplified Chinese. Typed as a full record of the English keys, so a missing key (or a stray
 * extra one) fails `tsc`/`svelte-check` instead of showing an English fallback at run time.
 * Technical names (Docker, Swarm, ENGINE.*, image references) stay untranslated on purpose: they
 * match what users see in logs and in the AgentJet docs. Like en.ts, it gathers every topic for the type
 * and for tests; the app loads the topic files themselves (topics.ts).
 */
export const zhCN: Record<MessageKey, string> = {
  ...zhCNServers,
  ...zhCNProfiles,
  ...zhCNDoctor,
  ...zhCNLogs,
  ...zhCNTraining,
  ...zhCNVault,
  ...zhCNDryrun,
  ...zhCNWizard,
  ...zhCNWizardRun,
  ...zhCNJobs,
  ...zhCNSlurm,
  ...zhCNServerState,
  ...zhCNBackend,
  ...zhCNUpdates,
  ...zhCNWorkers,
  ...zhCNWorkersAdd,
  ...zhCNFleet,
  ...zhCNRuns,
  ...zhCNDiagnostics,
  ...zhCNDoctorFindings,
  ...zhCNFleetAlerts,
  ...zhCNWorkerNotes,
  ...zhCNErrors,
  ...zhCNCommon,
};
