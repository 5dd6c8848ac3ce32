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

  'status.swarm': 'AgentJet swarm server: {status} · {host}',
  'status.swarmMore': '(+{count} more)',
  'status.notRunning': 'AgentJet swarm server: none watched',
  'status.unreachable': 'AgentJet swarm server: unreachable · {host}',
  'status.starting': 'AgentJet swarm server: starting · {host}',
  'status.backendDown': 'AgentJet swarm server: unknown (the app backend did not answer)',
  'status.checking': 'AgentJet swarm server: checking…',

  'wizard.title': 'Guided rollout wizard',
  'wizard.body':
    'This page will walk you through a first rollout step by step: pick a model and dataset, start an AgentJet swarm server, connect your agent code and watch the first training steps.',
  'wizard.notYet':
    'The wizard is not built yet. For now, start an AgentJet swarm server on the Servers page.',
  'wizard.goServers': 'Go to Servers',

  'jobs.title': 'Rollout jobs',
  'jobs.body':
    'This page will list your rollout jobs: which AgentJet swarm server each one runs against, its progress and global step, and its logs.',
  'jobs.notYet':
    'Jobs are not tracked yet. The training status of each server is on the Servers page.',

  'servers.title': 'AgentJet swarm servers',
  'servers.intro':
    'An AgentJet swarm server (not Docker Swarm) is the training side of AgentJet: it holds the model, collects the rollouts your agent code sends it over HTTP, and updates the weights. Start one in a container on a Docker engine and watch its training status here.',

  'engine.title': 'Docker engine (this computer)',
  'engine.checking': 'Checking Docker…',
  'engine.reachable': 'Reachable',
  'engine.version': 'Docker {version} (API {apiVersion})',
  'engine.unreachable': 'Not reachable',
  'engine.recheck': 'Check again',
  'engine.none': 'No Docker engine is configured on this computer.',
  'engine.statusLabel': 'Docker engine state',

  'start.title': 'Start an AgentJet swarm server',
  'start.image': 'Image',
  'start.port': 'Port',
  'start.network': 'Network',
  'start.network.publish': 'Publish on 127.0.0.1',
  'start.network.host': 'Host network',
  'start.networkHint.publish': 'Only the Docker host itself can reach the port (recommended).',
  'start.networkHint.host':
    'Risk: in host mode the port is open on all network interfaces of the Docker host. Use "Publish on 127.0.0.1" unless the Docker engine has no bridge network.',
  'start.noAuthRisk':
    'The swarm API has no authentication: anyone who can reach its port can start or stop training.',
  'start.gpusHint': 'Needs NVIDIA GPUs and the NVIDIA Container Toolkit on the Docker host.',
  'start.urlHint': 'Your training code will connect to {url}.',
  'start.engineProblem': 'Not started: the Docker engine has a problem, shown above.',
  'start.gpus': 'Use all GPUs',
  'start.shm': 'Shared memory (GiB)',
  'start.submit': 'Start',
  'start.submitting': 'Starting…',
  'start.started': 'Started {name}. Your training code connects to {url}.',

  'validation.imageRequired': 'Enter an image, e.g. ghcr.io/modelscope/agentjet:main.',
  'validation.imageFormat': 'The image must look like registry/name:tag, e.g. ghcr.io/modelscope/agentjet:main.',
  'validation.port': 'The port must be a whole number from {portMin} to {portMax}.',
  'validation.shm': 'Shared memory must be a whole number of GiB from {shmMin} to {shmMax}.',

  'containers.title': 'Swarm server containers',
  'containers.empty': 'No swarm server containers yet. Start one above.',
  'containers.loading': 'Loading containers…',
  'containers.refresh': 'Refresh',
  'containers.name': 'Name',
  'containers.image': 'Image',
  'containers.port': 'URL for training code',
  'containers.state': 'Container',
  'containers.engine': 'Training status',
  'containers.actions': 'Actions',
  'containers.stop': 'Stop',
  'containers.stopping': 'Stopping…',
  'containers.remove': 'Remove',
  'containers.removing': 'Removing…',
  'containers.confirmRemove': 'Remove this running container?',
  'containers.confirmRemoveButton': 'Yes, remove',
  'containers.cancel': 'Cancel',
  'containers.step': 'step {step}',
  'containers.engineUnknown': 'not known yet',
  'containers.lastError': 'Last error:',
  'containers.waitingForEngine': 'The containers appear here once the Docker engine is reachable.',
  'containers.rowLabel': '{name}: container {state}, training status {status}',

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
  'settings.swarmDefaultsHint':
    'The start form on the Servers page opens with these values; each successful start saves the values it used here.',
  'settings.save': 'Save',
  'settings.saving': 'Saving…',
  'settings.saved': 'Saved.',
  'settings.loading': 'Loading settings…',
  'settingsFile.short.unreadable': 'Your settings file could not be read. The app runs with default settings and will not save over it.',
  'settingsFile.short.moved-aside': 'Your settings file was damaged and has been moved aside. The app runs with default settings.',
  'settingsFile.short.fields-reset': 'Some settings were invalid and have been reset to their defaults.',
  'settingsFile.details': 'Details in Settings',
  'settingsFile.file': 'Settings file:',
  'settingsFile.movedTo': 'The original is kept at:',
  'settingsFile.resetFields': 'Reset to defaults: {fields}',
  'settingsFile.reason': 'Reason: {detail}',
  'settingsFile.fix.unreadable': 'Fix or move that file, then save again: the app reads it again before saving.',
  'settingsFile.fix.moved-aside': 'Saving writes a new settings file. Look into the moved copy if you need an old value.',
  'settingsFile.fix.fields-reset': 'The other settings were kept. The next save keeps a copy of the original file first.',
  'appLog.title': 'App log',
  'appLog.hint': 'What the app did and every error in full, with secrets removed. Attach it when you report a problem.',
  'appLog.path': 'Log file',
  'appLog.copy': 'Copy path',
  'appLog.copied': 'Copied.',
  'appLog.open': 'Open',
  'appLog.refresh': 'Refresh',
  'appLog.recent': 'Recent lines',
  'appLog.empty': 'Nothing logged yet.',
  'appLog.problem': 'The log file cannot be written ({problem}). Entries go to the terminal instead.',
  'appLog.browserHint': 'A browser cannot open files on your computer: copy the path and open the file in an editor.',

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
  'errorHelp.VALIDATION_FAILED': 'The app refused a value before acting. The detail names the field.',
  'errorHelp.FORBIDDEN': 'The browser page is missing the access token the app printed when it started.',
  'errorHelp.UNKNOWN_CHANNEL': 'The page and the app backend come from different versions. Restart the app.',
  'errorHelp.ENGINE_UNREACHABLE':
    'The app could not talk to the Docker engine at the address shown. Start Docker, or fix DOCKER_HOST.',
  'errorHelp.ENGINE_PERMISSION_DENIED':
    'Docker refused this user. Membership of the "docker" group (or rootless Docker) gives access.',
  'errorHelp.ENGINE_NOT_FOUND': 'The request named a Docker engine the app does not know. Reload the page.',
  'errorHelp.IMAGE_NOT_FOUND':
    'The Docker host does not have this image and could not pull it. Pull it there, or check the name.',
  'errorHelp.PORT_IN_USE':
    'Another program on the Docker host listens on this port. Pick another port or stop that program.',
  'errorHelp.CONTAINER_NOT_FOUND': 'The container was removed outside the app, for example with docker rm.',
  'errorHelp.CONTAINER_CONFLICT': 'Docker already has a container with this name or port from an earlier start.',
  'errorHelp.CONTAINER_START_FAILED':
    'Docker created the container but could not run it. A GPU error means the NVIDIA Container Toolkit is missing: untick "Use all GPUs" or install it.',
  'errorHelp.SWARM_UNREACHABLE':
    'The AgentJet swarm server did not answer over HTTP. Wait a moment after a start, or look at its container.',
  'errorHelp.SETTINGS_INVALID': 'A setting had a value the app does not accept. The detail names the field.',
  'errorHelp.SETTINGS_NOT_SAVED': 'The settings file could not be written. Your change is not kept after a restart.',
  'errorHelp.LOG_UNAVAILABLE': 'The app log cannot be shown from here. Open the file from its path instead.',
  'errorHelp.INTERNAL': 'An unexpected error inside the app. The app log has the details.',
  'errorHelp.BACKEND_UNREACHABLE':
    'The page lost its connection to the app backend. Start the app again, then reload this page.',
} as const;

export type MessageKey = keyof typeof en;
