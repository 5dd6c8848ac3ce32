import { shellQuote } from '../engines/container-engine';
import { hostParam, noHostReason, noHostSkip, pass, problem, say, skip, type Check, type CheckContext, type Finding } from './check-kit';
import { effectiveInitPath, parseCdiScan, parseInitScan, versionAtLeast, type InitScan } from './podman-parsers';

/**
 * Checks only a Podman engine gets (the plan leaves them out of Docker reports): GPUs through CDI
 * and the container init. The rootless ones are in podman-rootless-checks.ts.
 */

/** The CDI spec command of the NVIDIA Container Toolkit (1.12 added `nvidia-ctk cdi generate`). */
export const CDI_GENERATE = 'sudo nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml';
export const CDI_MIN_TOOLKIT = '1.12';
/** Where Podman 4.3 looks for catatonit when no init_path is set (measured: it looks nowhere else). */
export const PODMAN_DEFAULT_INIT = '/usr/libexec/podman/catatonit';

/** A spec file's `kind: nvidia.com/gpu` (YAML) or `"kind":"nvidia.com/gpu"` (JSON, often on one line). */
export const CDI_KIND_PATTERN = String.raw`kind["']?[[:space:]]*:[[:space:]]*["']?nvidia\.com/gpu(["'[:space:],}]|$)`;

/** `nvidia-ctk cdi list` when the toolkit is there; then every spec file in Podman's CDI folders. */
export const CDI_SCAN_SCRIPT = [
  'if command -v nvidia-ctk >/dev/null 2>&1; then',
  '  echo "#ctk-version $(nvidia-ctk --version 2>&1 | head -n 1)"',
  "  echo '#ctk-list'",
  '  nvidia-ctk cdi list 2>&1',
  "  echo '#ctk-end'",
  'fi',
  'for f in /etc/cdi/*.yaml /etc/cdi/*.yml /etc/cdi/*.json /var/run/cdi/*.yaml /var/run/cdi/*.yml /var/run/cdi/*.json; do',
  `  if [ -f "$f" ] && grep -Eq ${shellQuote(CDI_KIND_PATTERN)} "$f" 2>/dev/null; then echo "#spec $f"; fi`,
  'done',
].join('\n');

const isNvidiaDevice = (name: string): boolean => name.startsWith('nvidia.com/gpu=');

/** The profile's GPU ids that no CDI device name carries (nvidia.com/gpu=0, nvidia.com/gpu=GPU-<uuid>). */
function missingIds(c: CheckContext, devices: string[]): string[] {
  if (c.profile.gpus.mode !== 'ids') return [];
  const names = new Set(devices.map((d) => d.slice('nvidia.com/gpu='.length)));
  return c.profile.gpus.ids.filter((id) => !names.has(id));
}

/** `from`: who listed the devices, Podman itself ('Engine') or nvidia-ctk on the host ('Ctk'), part of the words' key. */
function devicesFinding(c: CheckContext, devices: string[], source: string, from: 'Engine' | 'Ctk'): Finding {
  const missing = missingIds(c, devices);
  const facts = { host: hostParam(c), devices: devices.join(', ') };
  if (missing.length > 0) {
    return problem(
      'fail',
      `The profile asks for GPU ${missing.join(', ')}, but the CDI spec on ${c.hostLabel} has no device by that name (${source}: ${devices.join(', ')}).`,
      'Choose GPUs by a name the spec has (the index or UUID nvidia-smi -L shows), or generate the spec again if GPUs were added or the driver changed since.',
      CDI_GENERATE,
      c.where,
      say(`cdiNoSuchGpu${from}`, { ...facts, missing: missing.join(', ') }),
    );
  }
  return pass(`Podman can give the NVIDIA GPUs to containers through CDI (${source}: ${devices.join(', ')}).`, say(`cdiDevices${from}`, facts));
}

export const podmanCdi: Check = async (c) => {
  if (c.profile.gpus.mode === 'none') return skip('The profile asks for no GPUs.', say('noGpus'));
  const health = await c.health();
  const fromEngine = health.reachable ? ((await c.info().catch(() => null))?.cdiDevices.filter(isNvidiaDevice) ?? []) : [];
  if (fromEngine.length > 0) return devicesFinding(c, fromEngine, 'devices Podman reports', 'Engine');
  const why = noHostReason(c);
  if (why) return noHostSkip(c, why);
  const scan = parseCdiScan((await c.exec(CDI_SCAN_SCRIPT, 15_000)).stdout);
  if (scan.ctkDevices.length > 0) return devicesFinding(c, scan.ctkDevices, `nvidia-ctk cdi list on ${c.hostLabel}`, 'Ctk');
  if (scan.specFiles.length > 0) {
    // Without nvidia-ctk the device names inside are not listed; Podman reads the files themselves.
    const ids = c.profile.gpus.mode === 'ids' ? ` Whether it names GPU ${c.profile.gpus.ids.join(', ')} is checked when the server starts.` : '';
    const facts = { host: hostParam(c), files: scan.specFiles.join(', ') };
    return pass(
      `A CDI spec for NVIDIA GPUs is on ${c.hostLabel} (${scan.specFiles.join(', ')}): Podman gives the GPUs to containers through it.${ids}`,
      c.profile.gpus.mode === 'ids' ? say('cdiSpecFilesIds', { ...facts, ids: c.profile.gpus.ids.join(', ') }) : say('cdiSpecFiles', facts),
    );
  }
  const looked = scan.ctkListed
    ? 'nvidia-ctk cdi list names no NVIDIA device, and no file in /etc/cdi or /var/run/cdi names nvidia.com/gpu'
    : 'nvidia-ctk is not installed there, and no file in /etc/cdi or /var/run/cdi names nvidia.com/gpu';
  const toolkit =
    scan.ctkVersion === null
      ? `Install the NVIDIA Container Toolkit (${CDI_MIN_TOOLKIT} or newer, from NVIDIA's package repository) on ${c.hostLabel}, then generate the spec`
      : versionAtLeast(scan.ctkVersion, CDI_MIN_TOOLKIT)
        ? `Generate the spec on ${c.hostLabel} with the NVIDIA Container Toolkit (nvidia-ctk ${scan.ctkVersion} is there)`
        : `Update the NVIDIA Container Toolkit on ${c.hostLabel} to ${CDI_MIN_TOOLKIT} or newer (nvidia-ctk ${scan.ctkVersion} cannot generate CDI specs), then generate the spec`;
  // The words' key: which toolkit is there (none, one that can generate specs, one too old to).
  const toolkitKey = scan.ctkVersion === null ? 'cdiNoSpecNoToolkit' : versionAtLeast(scan.ctkVersion, CDI_MIN_TOOLKIT) ? 'cdiNoSpec' : 'cdiNoSpecOldToolkit';
  return problem(
    'fail',
    `Podman gives GPUs to containers only through CDI, and ${c.hostLabel} has no CDI spec for NVIDIA GPUs (${looked}). Started anyway, the swarm server would get no GPU.`,
    `${toolkit} with the command below, and again after every NVIDIA driver update (the spec names the driver's files); or set GPUs to "none".`,
    CDI_GENERATE,
    c.where,
    say(toolkitKey, { host: hostParam(c), version: scan.ctkVersion ?? '', min: CDI_MIN_TOOLKIT }),
  );
};

/** The host's package manager, one `#pm <name>` line, for install commands that run there as given. */
export const PACKAGE_MANAGER_SCRIPT = 'for m in apt-get dnf yum zypper; do if command -v "$m" >/dev/null 2>&1; then echo "#pm $m"; break; fi; done';

/** `sudo apt-get install x`, or with the package manager found there; apt-get when none was found. */
export function installCommand(packageManager: string | null, pkg: string): string {
  return `sudo ${packageManager ?? 'apt-get'} install ${pkg}`;
}

/**
 * Every containers.conf Podman reads, in its order (a later file wins; `$CONTAINERS_CONF` alone when
 * set; the user's only when not root), catatonit's places, and the package manager. The app's
 * session is not the Podman service's: a service started with its own CONTAINERS_CONF is not seen.
 */
export const INIT_SCAN_SCRIPT = [
  'conf() { if [ -f "$1" ] && [ -r "$1" ]; then echo "#conf $1"; cat "$1"; echo; echo "#conf-end"; fi; }',
  'if [ -n "${CONTAINERS_CONF:-}" ]; then conf "$CONTAINERS_CONF"; else',
  '  conf /usr/share/containers/containers.conf',
  '  for f in /usr/share/containers/containers.conf.d/*.conf; do conf "$f"; done',
  '  conf /etc/containers/containers.conf',
  '  for f in /etc/containers/containers.conf.d/*.conf; do conf "$f"; done',
  '  if [ "$(id -u)" != 0 ]; then',
  '    d="${XDG_CONFIG_HOME:-$HOME/.config}/containers"',
  '    conf "$d/containers.conf"',
  '    for f in "$d"/containers.conf.d/*.conf; do conf "$f"; done',
  '  fi',
  'fi',
  `if [ -x ${PODMAN_DEFAULT_INIT} ]; then echo '#libexec yes'; else echo '#libexec no'; fi`,
  'p=$(command -v catatonit 2>/dev/null) && echo "#other $p"',
  PACKAGE_MANAGER_SCRIPT,
  'if [ -e "${XDG_CONFIG_HOME:-$HOME/.config}/containers/containers.conf" ]; then echo "#user-conf"; fi',
  'if [ -e /etc/containers/containers.conf ]; then echo "#system-conf"; fi',
  'true',
].join('\n');

const STOP_FAST = 'the app starts the swarm server with an init as PID 1, so that Stop ends it in milliseconds instead of after the stop timeout';

/** Where a user sets init_path: their own file for rootless Podman, the system's for rootful. */
function confFor(rootless: boolean | null): string {
  return rootless === false ? '/etc/containers/containers.conf' : '~/.config/containers/containers.conf';
}

/** Writes init_path into a file that does not exist yet; one that exists is edited by hand (a second [containers] table would break it). */
function initPathCommand(scan: InitScan, rootless: boolean | null, init: string): string | null {
  const text = `printf '[containers]\\ninit_path = "%s"\\n' ${shellQuote(init)}`;
  if (rootless === false) return scan.systemConfExists ? null : `${text} | sudo tee /etc/containers/containers.conf >/dev/null`;
  return scan.userConfExists ? null : `mkdir -p "$HOME"/.config/containers && ${text} > "$HOME"/.config/containers/containers.conf`;
}

export const podmanInit: Check = async (c) => {
  const why = noHostReason(c);
  if (why) return noHostSkip(c, why);
  const host = hostParam(c);
  const scan = parseInitScan((await c.exec(INIT_SCAN_SCRIPT, 10_000)).stdout);
  const set = effectiveInitPath(scan);
  if (set) {
    const there = await c.exec(`if [ -x ${shellQuote(set.path)} ]; then echo '#init-ok'; fi`, 10_000);
    if (there.stdout.includes('#init-ok')) return pass(`init_path = "${set.path}" (set in ${set.file}) is there on ${c.hostLabel}: Podman runs it as the swarm server's init, so Stop takes milliseconds.`, say('initPathOk', { path: set.path, file: set.file, host }));
    return problem(
      'fail',
      `init_path in ${set.file} on ${c.hostLabel} names ${set.path}, which is not there or not executable, so Podman cannot start the swarm server with an init (${STOP_FAST}).`,
      `Install catatonit (then remove the init_path line, or point it at ${PODMAN_DEFAULT_INIT}), or point init_path at an init that is there, e.g. /usr/bin/tini-static.`,
      installCommand(scan.packageManager, 'catatonit'),
      c.where,
      say('initPathMissing', { path: set.path, file: set.file, host, default: PODMAN_DEFAULT_INIT }),
    );
  }
  if (scan.libexecCatatonit) return pass(`catatonit is at ${PODMAN_DEFAULT_INIT} on ${c.hostLabel}: Podman runs it as the swarm server's init, so Stop takes milliseconds.`, say('catatonitDefault', { path: PODMAN_DEFAULT_INIT, host }));
  const rootless = await c.rootless();
  if (scan.otherCatatonit) {
    const version = (await c.health()).version;
    // Measured on 4.3.1: without init_path it stats only the default place. Newer versions search further.
    const old = version === null || !versionAtLeast(version, '4.4');
    const command = initPathCommand(scan, rootless, scan.otherCatatonit);
    const where = command ? 'the command writes that file, which does not exist yet' : 'that file exists: add the line under [containers]';
    return problem(
      old ? 'fail' : 'warn',
      `catatonit is at ${scan.otherCatatonit} on ${c.hostLabel}, but Podman${version ? ` ${version}` : ''} looks for it at ${PODMAN_DEFAULT_INIT} unless init_path says otherwise` +
        `${old ? ' (it fails with "container-init binary not found on the host")' : ' (newer versions also search some other folders)'}; ${STOP_FAST}.`,
      `Set init_path = "${scan.otherCatatonit}" in the [containers] table of ${confFor(rootless)} (${where}).`,
      command,
      c.where,
      // Key: an old Podman fails without it (else warns); a file to write with the command, or one to edit by hand.
      say(`catatonitElsewhere${old ? 'Old' : ''}${command ? '' : 'Edit'}`, { path: scan.otherCatatonit, host, podman: version ? `Podman ${version}` : 'Podman', default: PODMAN_DEFAULT_INIT, conf: confFor(rootless) }),
    );
  }
  const alternative = `Or, with another init installed (e.g. tini), set init_path = "/usr/bin/tini-static" in the [containers] table of ${confFor(rootless)}.`;
  const otherPm = scan.packageManager === null ? ' (on Fedora, RHEL and their kin: sudo dnf install catatonit)' : '';
  return problem(
    'fail',
    `catatonit, Podman's init for containers, is not on ${c.hostLabel}, and no containers.conf sets an init_path: ${STOP_FAST}, and without an init Podman refuses to start it ("container-init binary not found on the host").`,
    `Install catatonit on ${c.hostLabel}${otherPm}. ${alternative}`,
    installCommand(scan.packageManager, 'catatonit'),
    c.where,
    say(scan.packageManager === null ? 'catatonitMissingNoPm' : 'catatonitMissing', { host, conf: confFor(rootless) }),
  );
};
