/**
 * English is the reference dictionary: its keys define `MessageKey`, and every other language must
 * provide the same keys (enforced by the type of `zh-CN.ts`). Keys are flat, dotted strings so a
 * missing or misspelled key is a compile error at the call site of `t()`.
 */
export const en = {
  'app.title': 'AgentSwarm Desktop',

  'nav.label': 'Main navigation',
  'nav.wizard': 'Wizard',
  'nav.servers': 'Servers',
  'nav.jobs': 'Jobs',
  'nav.settings': 'Settings',

  'status.swarm': 'Swarm: {status} · {host}',
  'status.swarmMore': '(+{count} more)',
  'status.notRunning': 'Swarm: not running',
  'status.unreachable': 'Swarm: unreachable · {host}',
  'status.starting': 'Swarm: starting · {host}',
  'status.backendDown': 'Swarm: unknown (the app backend did not answer)',

  'wizard.title': 'Guided rollout wizard',
  'wizard.body':
    'This page will walk you through a first swarm rollout step by step: pick a model and dataset, start a swarm server, connect your agent code and watch the first training steps.',
  'wizard.notYet': 'The wizard is not built yet. For now, start a swarm server on the Servers page.',
  'wizard.goServers': 'Go to Servers',

  'jobs.title': 'Rollout jobs',
  'jobs.body':
    'This page will list your rollout jobs: which swarm server each one runs against, its progress and global step, and its logs.',
  'jobs.notYet': 'Jobs are not tracked yet. The live engine status of each server is on the Servers page.',

  'servers.title': 'Swarm servers',
  'servers.intro':
    'Start the AgentJet Swarm Server in a Docker container and watch its engine status. Your training code connects to it over HTTP.',

  'engine.title': 'Local Docker',
  'engine.checking': 'Checking Docker…',
  'engine.reachable': 'Reachable',
  'engine.version': 'Docker {version} (API {apiVersion})',
  'engine.unreachable': 'Not reachable',
  'engine.recheck': 'Check again',
  'engine.none': 'No local Docker engine is configured.',

  'start.title': 'Start a swarm server',
  'start.image': 'Image',
  'start.port': 'Port',
  'start.network': 'Network',
  'start.network.publish': 'Publish on 127.0.0.1',
  'start.network.host': 'Host network',
  'start.networkHint.publish': 'Only this machine can reach the port. Recommended: the swarm API has no password.',
  'start.networkHint.host':
    'Risk: in host mode the swarm API, which has no authentication, listens on all network interfaces of the Docker engine host, so anyone who can reach that network can start or stop training. Use "Publish on 127.0.0.1" unless the engine has no bridge network.',
  'start.gpus': 'Use all GPUs',
  'start.shm': 'Shared memory (GiB)',
  'start.submit': 'Start',
  'start.submitting': 'Starting…',
  'start.started': 'Started {name}.',

  'validation.imageRequired': 'Enter an image, e.g. ghcr.io/modelscope/agentjet:main.',
  'validation.imageFormat': 'The image must look like registry/name:tag, e.g. ghcr.io/modelscope/agentjet:main.',
  'validation.port': 'The port must be a whole number from 1024 to 65535.',
  'validation.shm': 'Shared memory must be a whole number of GiB from 1 to 1024.',

  'containers.title': 'Containers',
  'containers.empty': 'No swarm server containers yet. Start one above.',
  'containers.loading': 'Loading containers…',
  'containers.refresh': 'Refresh',
  'containers.name': 'Name',
  'containers.image': 'Image',
  'containers.port': 'Port',
  'containers.state': 'Container',
  'containers.engine': 'Engine status',
  'containers.actions': 'Actions',
  'containers.stop': 'Stop',
  'containers.stopping': 'Stopping…',
  'containers.remove': 'Remove',
  'containers.removing': 'Removing…',
  'containers.confirmRemove': 'Remove this running container?',
  'containers.confirmRemoveButton': 'Yes, remove',
  'containers.cancel': 'Cancel',
  'containers.step': 'step {step}',
  'containers.engineUnknown': 'unknown yet',
  'containers.lastError': 'Last error:',

  'containerState.created': 'created',
  'containerState.running': 'running',
  'containerState.paused': 'paused',
  'containerState.restarting': 'restarting',
  'containerState.removing': 'removing',
  'containerState.exited': 'exited',
  'containerState.dead': 'dead',
  'containerState.unknown': 'unknown',

  'connection.starting': 'starting',
  'connection.online': 'online',
  'connection.unreachable': 'unreachable',
  'connection.stopped': 'stopped',
  'connection.none': 'not watched',

  'engineStatus.ENGINE.OFFLINE': 'The server is up; no training engine is running yet.',
  'engineStatus.ENGINE.BOOTING': 'The training engine is starting (loading the model).',
  'engineStatus.ENGINE.ROLLING': 'Collecting rollouts from your agents.',
  'engineStatus.ENGINE.ROLLING_POST': 'Finishing the current rollout round.',
  'engineStatus.ENGINE.WEIGHT_SYNCING': 'Training and syncing new weights.',
  'engineStatus.ENGINE.WEIGHT_EXPORTING': 'Exporting model weights.',

  'settings.title': 'Settings',
  'settings.language': 'Language',
  'settings.language.en': 'English',
  'settings.language.zh-CN': '简体中文',
  'settings.swarmDefaults': 'Swarm server defaults',
  'settings.swarmDefaultsHint': 'Used to fill in the start form on the Servers page.',
  'settings.save': 'Save',
  'settings.saving': 'Saving…',
  'settings.saved': 'Saved.',
  'settings.loading': 'Loading settings…',

  'error.dismiss': 'Dismiss',

  'errors.VALIDATION_FAILED': 'Some input was not accepted. Check the fields and try again.',
  'errors.FORBIDDEN': 'Access denied. Open the app with the full link printed by `npm run web` (it contains the access token).',
  'errors.UNKNOWN_CHANNEL': 'The app backend does not know this request. Are the app and its backend the same version?',
  'errors.ENGINE_UNREACHABLE': 'The container engine is not reachable. The details below say what to check.',
  'errors.ENGINE_PERMISSION_DENIED':
    'No permission to use the container engine. The details below say how to get it.',
  'errors.ENGINE_NOT_FOUND': 'This container engine is not configured.',
  'errors.IMAGE_NOT_FOUND': 'Image not found on this engine.',
  'errors.PORT_IN_USE': 'Port already in use.',
  'errors.CONTAINER_NOT_FOUND': 'The container no longer exists. The list has been refreshed.',
  'errors.CONTAINER_CONFLICT': 'A container with this name or port already exists. Stop or remove it first.',
  'errors.CONTAINER_START_FAILED': 'The container did not start. The details below come from the container engine.',
  'errors.SWARM_UNREACHABLE': 'The swarm server does not answer. It may still be starting, or it has stopped.',
  'errors.SETTINGS_INVALID': 'The settings could not be saved. Check the values and try again.',
  'errors.SETTINGS_NOT_SAVED': 'The settings were not saved. The details below name the file and what to do.',
  'errors.LOG_UNAVAILABLE': 'The app log could not be opened here. Its location is shown on the Settings page.',
  'errors.INTERNAL': 'Something went wrong inside the app.',
  'errors.BACKEND_UNREACHABLE': 'The app backend is not reachable.',
  'errors.unknown': 'Error {code}.',
} as const;

export type MessageKey = keyof typeof en;
