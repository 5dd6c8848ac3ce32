import type { Language } from '../../../../electron/shared/schemas';

/**
 * The strings come in topics, one file per topic and language (en-<topic>.ts, zh-CN-<topic>.ts), each a
 * chunk of its own: the app loads `shell` (en-shell.ts: the words of the navigation, the status bar and the
 * banners, and those nearly every page shows) before the first paint and a page's topics
 * with the page (lib/pages.ts, lib/lazy-parts.svelte.ts), in the language shown; a language switch loads the
 * topics in use in the new language before it shows (locale.svelte.ts). Some topics load on their own, the
 * first time one of their keys is worded (FIRST_USE_TOPICS): `errors` (the error codes' titles and help) and
 * `doctor-findings` (a doctor report's details and fixes). Which topics a page needs is
 * checked against the keys its code uses (test/unit/build/i18n-topics.spec.ts). A new topic file is one row
 * in each table below.
 */
export type Topic = 'shell' | 'errors' | 'diagnostics' | 'doctor-findings' | 'doctor' | 'dryrun' | 'fleet-alerts' | 'fleet' | 'jobs' | 'logs' | 'profiles' | 'runs' | 'training' | 'updates' | 'vault' | 'wizard-run' | 'wizard' | 'worker-notes' | 'workers-add' | 'workers';

type Strings = Readonly<Record<string, string>>;

export const topicLoaders: Record<Language, Record<Topic, () => Promise<Strings>>> = {
  en: {
    shell: () => import('./en-shell').then((m) => m.enShell),
    errors: () => import('./en-errors').then((m) => m.enErrors),
    diagnostics: () => import('./en-diagnostics').then((m) => m.enDiagnostics),
    'doctor-findings': () => import('./en-doctor-findings').then((m) => m.enDoctorFindings),
    doctor: () => import('./en-doctor').then((m) => m.enDoctor),
    dryrun: () => import('./en-dryrun').then((m) => m.enDryrun),
    'fleet-alerts': () => import('./en-fleet-alerts').then((m) => m.enFleetAlerts),
    fleet: () => import('./en-fleet').then((m) => m.enFleet),
    jobs: () => import('./en-jobs').then((m) => m.enJobs),
    logs: () => import('./en-logs').then((m) => m.enLogs),
    profiles: () => import('./en-profiles').then((m) => m.enProfiles),
    runs: () => import('./en-runs').then((m) => m.enRuns),
    training: () => import('./en-training').then((m) => m.enTraining),
    updates: () => import('./en-updates').then((m) => m.enUpdates),
    vault: () => import('./en-vault').then((m) => m.enVault),
    'wizard-run': () => import('./en-wizard-run').then((m) => m.enWizardRun),
    wizard: () => import('./en-wizard').then((m) => m.enWizard),
    'worker-notes': () => import('./en-worker-notes').then((m) => m.enWorkerNotes),
    'workers-add': () => import('./en-workers-add').then((m) => m.enWorkersAdd),
    workers: () => import('./en-workers').then((m) => m.enWorkers),
  },
  'zh-CN': {
    shell: () => import('./zh-CN-shell').then((m) => m.zhCNShell),
    errors: () => import('./zh-CN-errors').then((m) => m.zhCNErrors),
    diagnostics: () => import('./zh-CN-diagnostics').then((m) => m.zhCNDiagnostics),
    'doctor-findings': () => import('./zh-CN-doctor-findings').then((m) => m.zhCNDoctorFindings),
    doctor: () => import('./zh-CN-doctor').then((m) => m.zhCNDoctor),
    dryrun: () => import('./zh-CN-dryrun').then((m) => m.zhCNDryrun),
    'fleet-alerts': () => import('./zh-CN-fleet-alerts').then((m) => m.zhCNFleetAlerts),
    fleet: () => import('./zh-CN-fleet').then((m) => m.zhCNFleet),
    jobs: () => import('./zh-CN-jobs').then((m) => m.zhCNJobs),
    logs: () => import('./zh-CN-logs').then((m) => m.zhCNLogs),
    profiles: () => import('./zh-CN-profiles').then((m) => m.zhCNProfiles),
    runs: () => import('./zh-CN-runs').then((m) => m.zhCNRuns),
    training: () => import('./zh-CN-training').then((m) => m.zhCNTraining),
    updates: () => import('./zh-CN-updates').then((m) => m.zhCNUpdates),
    vault: () => import('./zh-CN-vault').then((m) => m.zhCNVault),
    'wizard-run': () => import('./zh-CN-wizard-run').then((m) => m.zhCNWizardRun),
    wizard: () => import('./zh-CN-wizard').then((m) => m.zhCNWizard),
    'worker-notes': () => import('./zh-CN-worker-notes').then((m) => m.zhCNWorkerNotes),
    'workers-add': () => import('./zh-CN-workers-add').then((m) => m.zhCNWorkersAdd),
    workers: () => import('./zh-CN-workers').then((m) => m.zhCNWorkers),
  },
};

/** Every topic, for tests that need all strings at once. */
export const allTopics = Object.keys(topicLoaders.en) as Topic[];

/**
 * The topics fetched the first time one of their keys is worded rather than with a page or part: only a
 * moment of the page shows them (an error, a doctor report). Each one's keys are exactly those starting with
 * its prefixes (test/unit/build/i18n-topics.spec.ts), so `t()` knows the topic from the key alone.
 */
export const FIRST_USE_TOPICS = {
  errors: ['errors.', 'errorHelp.'],
  'doctor-findings': ['doctor.say.', 'doctor.sayFix.'],
} as const satisfies Partial<Record<Topic, readonly string[]>>;

export type FirstUseTopic = keyof typeof FIRST_USE_TOPICS;

/** The first-use topic `key` belongs to; null for a key of a page's or the shell's topic. */
export function firstUseTopicOf(key: string): FirstUseTopic | null {
  for (const [topic, prefixes] of Object.entries(FIRST_USE_TOPICS) as [FirstUseTopic, readonly string[]][]) {
    if (prefixes.some((prefix) => key.startsWith(prefix))) return topic;
  }
  return null;
}
