import { enBackend } from './en-backend';
import { enCommon } from './en-common';
import { enServerState } from './en-server-state';
import { enServers } from './en-servers';
import { enSlurm } from './en-slurm';

/**
 * The strings loaded before the first paint, as one chunk (topics.ts): the shell's own words (common, the
 * browser host's link, the status bar's server states, Slurm reasons and tunnel links) and the Servers
 * and Slurm words that the Servers page, the wizard and the fleet home all show.
 */
export const enShell = { ...enServers, ...enSlurm, ...enServerState, ...enBackend, ...enCommon };
