import { zhCNBackend } from './zh-CN-backend';
import { zhCNCommon } from './zh-CN-common';
import { zhCNServerState } from './zh-CN-server-state';
import { zhCNServers } from './zh-CN-servers';
import { zhCNSlurm } from './zh-CN-slurm';

/** Simplified Chinese for `en-shell.ts`: the same topics, loaded before the first paint when Chinese is shown. */
export const zhCNShell = { ...zhCNServers, ...zhCNSlurm, ...zhCNServerState, ...zhCNBackend, ...zhCNCommon };
