import type { Page } from './pages';

/**
 * What the app knows at startup that decides where it opens. `null` counts: a fact that could not
 * be read (the backend answered an error) is unknown, and an unknown never makes a user "new".
 */
export interface LandingFacts {
  /** The page in the address (a reload, or Electron reopening the last page), if it names one. */
  pageAtLoad: Page | null;
  /** How many SSH servers (remote engines) are configured. */
  servers: number | null;
  /** How many swarm profiles exist, on any engine. */
  profiles: number | null;
  /** Whether the wizard has any progress (a fact recorded, or a step other than the first open). */
  wizardStarted: boolean | null;
  /** How many swarm servers the app knows (the server-state store's list: running, queued or ended). */
  swarmServers: number | null;
}

/** One rule: when `applies`, the app opens on `page`. */
interface LandingRule {
  why: string;
  applies: (facts: LandingFacts) => boolean;
  page: (facts: LandingFacts) => Page;
}

/**
 * The rules in order; the first that applies wins. Kept as a plain list so a later rule (a fleet
 * home: "any server exists → fleet") is one row inserted above the fallback.
 */
export const LANDING_RULES: readonly LandingRule[] = [
  { why: 'the address names a page (a reload, or the page the user left)', applies: (f) => f.pageAtLoad !== null, page: (f) => f.pageAtLoad ?? 'servers' },
  {
    why: 'a new user (no server, no profile, no wizard progress) starts at the wizard',
    applies: (f) => f.servers === 0 && f.profiles === 0 && f.wizardStarted === false && f.swarmServers === 0,
    page: () => 'wizard',
  },
  { why: 'a returning user with a swarm server opens on the fleet home (which trained, which idled)', applies: (f) => (f.swarmServers ?? 0) > 0, page: () => 'fleet' },
  { why: 'everyone else opens on Servers (is my server up?)', applies: () => true, page: () => 'servers' },
];

/** The page the app opens on: the first rule of LANDING_RULES that applies. */
export function landingPage(facts: LandingFacts): Page {
  const rule = LANDING_RULES.find((r) => r.applies(facts)) ?? LANDING_RULES[LANDING_RULES.length - 1];
  return rule ? rule.page(facts) : 'servers';
}
