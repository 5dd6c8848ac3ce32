/**
 * Channel names only, without zod, so the preload bundle stays a few kilobytes. `contract.ts`
 * attaches a schema to each name and fails to compile if a name lacks one or has an extra one.
 */
export const INVOKE_CHANNELS = [
  'app:info',
  'app:log',
  'app:open-log',
  'engines:list',
  'engines:health',
  'swarm:list',
  'swarm:start',
  'swarm:stop',
  'swarm:remove',
  'swarm:statuses',
  'settings:get',
  'settings:update',
  'settings:status',
  'servers:list',
  'servers:add',
  'servers:update',
  'servers:remove',
  'servers:connect',
  'servers:disconnect',
  'servers:test',
  'servers:trust-host-key',
  'servers:replace-host-key',
  'servers:answer-prompt',
  'servers:ssh-config',
  'profiles:list',
  'profiles:add',
  'profiles:update',
  'profiles:remove',
  'profiles:command',
  'profiles:start',
  'profiles:stop',
  'profiles:restart',
  'doctor:run',
  'doctor:reports',
  'images:pull',
  'images:cancel-pull',
  'images:pulls',
  'logs:read',
  'logs:export',
  'logs:server-log',
  'logs:heads',
  'training:view',
  'training:series',
  'training:views',
  'vault:state',
  'vault:setup',
  'vault:unlock',
  'vault:lock',
  'vault:password-store',
  'secrets:list',
  'secrets:save',
  'secrets:delete',
  'secrets:test',
  'settings:export',
  'settings:import',
  'dryrun:view',
  'dryrun:start',
  'dryrun:stop',
  'dryrun:traces',
  'dryrun:trace',
  'dryrun:export-traces',
  'jobs:python',
  'jobs:start',
  'jobs:cancel',
  'jobs:rerun',
  'jobs:list',
  'jobs:get',
  'jobs:log',
  'jobs:open-log',
  'slurm:jobs',
  'wizard:state',
  'wizard:goto',
  'wizard:reset',
  'wizard:set-llm',
  'wizard:set-project',
  'wizard:set-python',
  'wizard:test-dataset',
  'wizard:test-episode',
  'wizard:preview-code',
  'wizard:generate-code',
  'wizard:choose-swarm',
  'wizard:start-swarm',
  'wizard:run-debug',
  'wizard:train',
  'wizard:stop-train',
] as const;

export const EVENT_CHANNELS = [
  'swarm:status',
  'swarm:containers-changed',
  'settings:changed',
  'settings:status-changed',
  'servers:changed',
  'engines:changed',
  'profiles:changed',
  'doctor:report',
  'images:pull-progress',
  'logs:appended',
  'training:changed',
  'app:notification',
  'vault:changed',
  'secrets:changed',
  'dryrun:changed',
  'dryrun:traces-changed',
  'jobs:changed',
  'jobs:log-appended',
  'wizard:changed',
] as const;

export type InvokeChannel = (typeof INVOKE_CHANNELS)[number];
export type EventChannel = (typeof EVENT_CHANNELS)[number];

export function isInvokeChannel(name: string): name is InvokeChannel {
  return (INVOKE_CHANNELS as readonly string[]).includes(name);
}

export function isEventChannel(name: string): name is EventChannel {
  return (EVENT_CHANNELS as readonly string[]).includes(name);
}

/** The single Electron IPC channel that carries every push event as `{ channel, payload }`. */
export const EVENT_BRIDGE_CHANNEL = 'api:event';
/** Sent by the renderer once it has subscribed, so queued events can be flushed. */
export const RENDERER_READY_CHANNEL = 'api:renderer-ready';
