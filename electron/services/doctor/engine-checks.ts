import { AGENTJET_MIRRORS } from '../engines/docker-pull';
import { cli, gib, GIB, hostParam, hostPathWord, noHostReason, noHostSkip, pass, problem, say, skip, type Check, type CheckContext, type Finding } from './check-kit';

/**
 * Checks answered by the engine itself (its API), plus the free disk under its data root. In native
 * mode the engine's containers are not used: those checks skip, saying so.
 */

const NATIVE_SKIP = 'Native mode runs ajet-swarm directly on the host, without containers: this does not apply.';
const NATIVE_SAY = say('nativeNoContainers');

/** A new group membership reaches only processes of a new login; an SSH session the app keeps open is one. */
const RELOGIN =
  'A new group membership only applies to new logins: log out and in (for a server over SSH, disconnect and reconnect it here so the app logs in again).';

/**
 * Which engine's own fix a finding names, as part of a key (`doctor.sayFix.unreachable<Which>`):
 * the product, where it runs and, for Podman, rootful or not. Null for an engine the renderer has
 * no words for (its English fix is shown then).
 */
async function engineFixWhich(c: CheckContext): Promise<string | null> {
  const product = (await c.product()) ?? (c.engine.wording.product === 'Docker' ? 'docker' : c.engine.wording.product === 'Podman' ? 'podman' : null);
  const place = c.where === 'local' ? 'Local' : 'Server';
  if (product === 'docker') return `Docker${place}`;
  if (product !== 'podman') return null;
  return `Podman${place}${(await c.rootless()) === false ? 'Rootful' : ''}`;
}

export const engineReachable: Check = async (c) => {
  if (c.profile.mode === 'native') return skip(NATIVE_SKIP, NATIVE_SAY);
  const health = await c.health();
  if (health.reachable) {
    return pass(
      `${c.engine.wording.product} ${health.version ?? '?'} (API ${health.apiVersion ?? '?'}) answers at ${c.engine.summary.endpoint}.`,
      say('engineAnswers', { product: c.engine.wording.product, version: health.version ?? '?', apiVersion: health.apiVersion ?? '?', endpoint: c.engine.summary.endpoint }),
    );
  }
  if (health.error?.code === 'ENGINE_PERMISSION_DENIED') {
    return skip(`${c.engine.wording.product} is there but refuses this user; the socket permission check says what to do.`, say('engineRefuses', { product: c.engine.wording.product }));
  }
  // The engine's own error text stays in `detail` (logs); the words say what it means and the engine's fix.
  const which = await engineFixWhich(c);
  return problem(
    'fail',
    health.error?.message ?? `${c.engine.wording.product} at ${c.engine.summary.endpoint} does not answer.`,
    c.engine.wording.unreachable(c.engine.summary.endpoint),
    `${cli(c)} version`,
    c.where,
    which ? say(`unreachable${which}`, { product: c.engine.wording.product, endpoint: c.engine.summary.endpoint, host: hostParam(c) }) : undefined,
  );
};

export const socketPermission: Check = async (c) => {
  if (c.profile.mode === 'native') return skip(NATIVE_SKIP, NATIVE_SAY);
  const health = await c.health();
  if (health.reachable) return pass(`This user may use ${c.engine.summary.endpoint}.`, say('socketAllowed', { endpoint: c.engine.summary.endpoint }));
  if (health.error?.code !== 'ENGINE_PERMISSION_DENIED') return skip(`${c.engine.wording.product} does not answer at all (see the first check), so its permissions are unknown.`, say('permissionUnknown', { product: c.engine.wording.product }));
  const which = await engineFixWhich(c);
  const words = which ? say(`denied${which}`, { endpoint: c.engine.summary.endpoint, host: hostParam(c) }) : undefined;
  // Podman has no group that opens its rootful socket: its wording says what to do instead (the user's own rootless Podman).
  if ((await c.product()) === 'podman') return problem('fail', health.error.message, c.engine.wording.permissionDenied(c.engine.summary.endpoint), null, null, words);
  return problem(
    'fail',
    health.error.message,
    `${c.engine.wording.permissionDenied(c.engine.summary.endpoint)} ${RELOGIN}`,
    // Docker's own group, as its wording names the product.
    `sudo usermod -aG ${cli(c)} "$USER"`,
    c.where,
    words,
  );
};

/** Docker Desktop runs its engine in a VM: containers there never see the host's NVIDIA GPUs on Linux. */
export const dockerDesktopVm: Check = async (c) => {
  if (c.profile.mode === 'native') return skip(NATIVE_SKIP, NATIVE_SAY);
  const info = await c.info();
  if (!/docker desktop/i.test(info.operatingSystem)) {
    return pass(
      `${c.engine.wording.product} runs on ${info.operatingSystem || 'the host'} directly, not in Docker Desktop's VM.`,
      say('notInVm', { product: c.engine.wording.product, os: info.operatingSystem || '?' }),
    );
  }
  if (c.profile.gpus.mode === 'none') return pass(`${c.engine.wording.product} runs in Docker Desktop's VM; fine for a server without GPUs.`, say('vmNoGpus', { product: c.engine.wording.product }));
  return problem(
    'warn',
    `${c.engine.wording.product} here is Docker Desktop (${info.operatingSystem}): its containers run in a VM that does not see this machine's GPUs.`,
    'Use Docker Engine on the host itself (on Linux: switch to the default context, with Docker Engine and the NVIDIA Container Toolkit installed), or set GPUs to "none".',
    'docker context use default',
    'local',
    say('desktopVmGpus', { product: c.engine.wording.product, os: info.operatingSystem }),
  );
};

/** Docker gives GPUs to containers through the NVIDIA runtime, its hook, or CDI devices. */
export const gpuRuntime: Check = async (c) => {
  if (c.profile.mode === 'native') return skip(NATIVE_SKIP, NATIVE_SAY);
  if (c.profile.gpus.mode === 'none') return skip('The profile asks for no GPUs.', say('noGpus'));
  const info = await c.info();
  if (info.runtimes.includes('nvidia')) return pass(`The NVIDIA runtime is registered (runtimes: ${info.runtimes.join(', ')}).`, say('nvidiaRuntime', { runtimes: info.runtimes.join(', ') }));
  const cdi = info.cdiDevices.filter((d) => d.startsWith('nvidia.com/gpu'));
  if (cdi.length > 0) return pass(`CDI devices for NVIDIA GPUs: ${cdi.join(', ')}.`, say('nvidiaCdi', { devices: cdi.join(', ') }));
  // `--gpus` also works through the toolkit's prestart hook without a registered runtime.
  if (c.engine.host) {
    const hook = await c.exec('command -v nvidia-container-runtime-hook || command -v nvidia-container-cli', 10_000);
    if (hook.code === 0 && hook.stdout.trim()) return pass(`The NVIDIA Container Toolkit is installed (${hook.stdout.trim().split('\n')[0]}); ${c.engine.wording.product} uses it for --gpus.`, say('nvidiaHook', { path: hook.stdout.trim().split('\n')[0] ?? '', product: c.engine.wording.product }));
  }
  return problem(
    'fail',
    `${c.engine.wording.product} has no NVIDIA runtime and no NVIDIA CDI devices (runtimes: ${info.runtimes.join(', ') || 'none'}), so containers get no GPU.`,
    `Install the NVIDIA Container Toolkit on ${c.hostLabel} (from NVIDIA's package repository) and register it with ${c.engine.wording.product}, or set GPUs to "none".`,
    'sudo apt-get install -y nvidia-container-toolkit && sudo nvidia-ctk runtime configure --runtime=docker && sudo systemctl restart docker',
    c.where,
    say('noNvidiaRuntime', { product: c.engine.wording.product, runtimes: info.runtimes.join(', ') || '–', host: hostParam(c) }),
  );
};

/** What `df -Pk` printed for one file system: its size and available bytes, or null. */
export function dfBytesOf(dfOutput: string): { sizeBytes: number; availableBytes: number } | null {
  const line = dfOutput.trim().split('\n').slice(-1)[0] ?? '';
  const fields = line.trim().split(/\s+/);
  const size = Number(fields[1]);
  const available = Number(fields[3]);
  if (fields.length < 6 || !Number.isFinite(size) || !Number.isFinite(available)) return null;
  return { sizeBytes: size * 1024, availableBytes: available * 1024 };
}

export function availableBytesOf(dfOutput: string): number | null {
  return dfBytesOf(dfOutput)?.availableBytes ?? null;
}

/** The AgentJet image is about this large unpacked; the doctor says it is an estimate. */
export const AGENTJET_SIZE_ESTIMATE = 20 * GIB;
/** Room for anything else when the image size is not known. */
const UNKNOWN_IMAGE_MIN_FREE = 10 * GIB;

export const diskSpace: Check = async (c) => {
  if (c.profile.mode === 'native') return skip(NATIVE_SKIP, NATIVE_SAY);
  const why = noHostReason(c);
  if (why) return noHostSkip(c, why);
  const info = await c.info();
  if (!info.rootDir) return skip(`${c.engine.wording.product} did not say where it keeps its data, so its free disk is unknown.`, say('diskRootUnknown', { product: c.engine.wording.product }));
  const df = await c.exec(`df -Pk ${hostPathWord(info.rootDir)}`, 10_000);
  const free = df.code === 0 ? availableBytesOf(df.stdout) : null;
  if (free === null) {
    const said = (df.stderr.trim() || df.stdout.trim()).split('\n')[0] ?? '';
    return problem('warn', `Could not read the free disk at ${info.rootDir} on ${c.hostLabel} (${said}).`, 'Check the free disk there by hand.', `df -h ${hostPathWord(info.rootDir)}`, c.where, say('diskUnreadable', { dir: info.rootDir, host: hostParam(c), said }));
  }
  const image = await c.image();
  const command = `${cli(c)} system df`;
  const words = (key: string, more: Record<string, string> = {}) => say(key, { free: gib(free), dir: info.rootDir, host: hostParam(c), product: c.engine.wording.product, cli: cli(c), ...more });
  const fix = `Free space on ${c.hostLabel} where ${c.engine.wording.product} keeps images (${info.rootDir}): remove images you no longer need (${cli(c)} image prune -a removes every unused one).`;
  if (image) {
    if (free >= image.sizeBytes) return pass(`${gib(free)} free at ${info.rootDir}; the image is already there (${gib(image.sizeBytes)}).`, say('diskImageThere', { free: gib(free), dir: info.rootDir, size: gib(image.sizeBytes) }));
    // Starting needs no more room, but pulling a newer version of the image would need about as much again.
    return problem('warn', `The image is there (${gib(image.sizeBytes)}), but only ${gib(free)} is free at ${info.rootDir}: not enough to pull a newer version of it.`, fix, command, c.where, words('diskNoRoomToUpdate', { size: gib(image.sizeBytes) }));
  }
  const agentjet = /agentjet/i.test(c.profile.image);
  if (!agentjet) {
    if (free >= UNKNOWN_IMAGE_MIN_FREE) return pass(`${gib(free)} free at ${info.rootDir} (the image's size is not known before pulling).`, say('diskSizeUnknown', { free: gib(free), dir: info.rootDir }));
    return problem('warn', `Only ${gib(free)} free at ${info.rootDir}; the image's size is not known before pulling.`, fix, command, c.where, words('diskLowSizeUnknown'));
  }
  if (free >= AGENTJET_SIZE_ESTIMATE) {
    return pass(
      `${gib(free)} free at ${info.rootDir}; the AgentJet image needs about ${gib(AGENTJET_SIZE_ESTIMATE)} (an estimate).`,
      say('diskAgentjet', { free: gib(free), dir: info.rootDir, need: gib(AGENTJET_SIZE_ESTIMATE) }),
    );
  }
  return problem('fail', `Only ${gib(free)} free at ${info.rootDir}; the AgentJet image needs about ${gib(AGENTJET_SIZE_ESTIMATE)} (an estimate).`, fix, command, c.where, words('diskLowAgentjet', { need: gib(AGENTJET_SIZE_ESTIMATE) }));
};

export const imagePresent: Check = async (c: CheckContext): Promise<Finding> => {
  if (c.profile.mode === 'native') return skip(NATIVE_SKIP, NATIVE_SAY);
  const image = await c.image();
  if (image) {
    const digest = image.repoDigests[0];
    return digest
      ? pass(`${c.profile.image} is present (${digest}).`, say('imageDigest', { image: c.profile.image, digest }))
      : pass(`${c.profile.image} is present (id ${image.id}; built or loaded here, no registry digest).`, say('imageLocal', { image: c.profile.image, id: image.id }));
  }
  const mirrors = /agentjet/i.test(c.profile.image) ? ` If the registry is slow or blocked from there, use a mirror: ${AGENTJET_MIRRORS.join(' or ')}.` : '';
  return problem(
    'fail',
    `${c.profile.image} is not on this engine yet. Whether the registry gives it out is only known once a pull starts.`,
    `Pull it (the Pull button shows its progress).${mirrors}`,
    `${cli(c)} pull ${c.profile.image}`,
    c.where,
    say(mirrors ? 'imageMissingMirrors' : 'imageMissing', { image: c.profile.image, mirrors: AGENTJET_MIRRORS.join(', ') }),
  );
};
