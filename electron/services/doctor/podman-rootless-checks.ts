import { shellQuote } from '../engines/container-engine';
import { installCommand, PACKAGE_MANAGER_SCRIPT } from './podman-checks';
import { hostParam, noHostReason, noHostSkip, pass, problem, say, skip, type Check, type CheckContext, type Finding } from './check-kit';
import { parseGraphDriver, parseLinger, parseNetworkProbe, parseSessionProbe } from './podman-parsers';

/**
 * Checks of rootless Podman, the usual setup on shared GPU servers: the plan lists them only when
 * Podman runs (or may run) rootless. Each runs as the user the app logs in as, which is the user
 * whose Podman it is.
 */

/**
 * A check's skip when there is no shell on the engine's host, or when it turns out Podman runs as
 * root after all (the plan lists these checks when it is not known); null when the check applies.
 */
async function notHereSkip(c: CheckContext): Promise<Finding | null> {
  const why = noHostReason(c);
  if (why) return noHostSkip(c, why);
  return (await c.rootless()) === false ? skip('Podman runs as root here: this applies to rootless Podman only.', say('rootfulPodman')) : null;
}

/** "the app's SSH session on gpu-1 (…)" or "the app's session on this computer". */
function session(c: CheckContext): string {
  return c.engine.host?.kind === 'ssh' ? `the app's SSH session on ${c.hostLabel}` : `the app's session on ${c.hostLabel}`;
}

export const LINGER_SCRIPT = [
  'u="${USER:-$(id -un)}"',
  'echo "#user $u"',
  'if command -v loginctl >/dev/null 2>&1; then out=$(loginctl show-user "$u" -p Linger 2>&1); echo "#rc $?"; printf \'%s\\n\' "$out";',
  "else echo '#rc 127'; echo 'loginctl: not found'; fi",
].join('\n');

export const podmanLinger: Check = async (c) => {
  const notHere = await notHereSkip(c);
  if (notHere) return notHere;
  const result = await c.exec(LINGER_SCRIPT, 10_000);
  const lines = result.stdout.split('\n');
  const user = lines.find((l) => l.startsWith('#user '))?.slice('#user '.length).trim() || 'this user';
  const code = Number.parseInt(lines.find((l) => l.startsWith('#rc '))?.slice('#rc '.length) ?? '', 10);
  const linger = parseLinger(lines.filter((l) => !l.startsWith('#')).join('\n'), Number.isFinite(code) ? code : null);
  const enable = `sudo loginctl enable-linger ${shellQuote(user)}`;
  const facts = { user, host: hostParam(c), said: 'reason' in linger ? linger.reason : '' };
  switch (linger.state) {
    case 'yes':
      return pass(`Lingering is on for ${user} on ${c.hostLabel}: the Podman service and its containers outlive ${user}'s logins.`, say('lingerOn', facts));
    case 'no':
      return problem(
        'warn',
        `Lingering is off for ${user} on ${c.hostLabel}: when ${user}'s last login there ends (the app's SSH connection is one), systemd may stop ${user}'s services, the Podman service and the swarm server's container among them.`,
        `Turn lingering on for ${user} (needs an administrator of ${c.hostLabel}):`,
        enable,
        c.where,
        say('lingerOff', facts),
      );
    case 'unavailable':
      return problem(
        'warn',
        `loginctl does not work on ${c.hostLabel} ("${linger.reason}"): there is no systemd login manager there, so lingering cannot be checked. The Podman service and the swarm server may stop when ${user} logs out.`,
        `Where systemd runs, turn lingering on with "${enable}". Without systemd, start the Podman service so that it outlives your login (for example from cron with @reboot podman system service --time=0), and keep the app connected while the server runs.`,
        null,
        null,
        say('lingerUnavailable', { ...facts, enable }),
      );
    default:
      return problem(
        'warn',
        `Could not tell whether lingering is on for ${user} on ${c.hostLabel} (loginctl said: ${linger.reason}). Without it the Podman service may stop when ${user} logs out.`,
        `Check with loginctl, and turn lingering on if it is off:`,
        enable,
        c.where,
        say('lingerUnknown', facts),
      );
  }
};

export const SESSION_SCRIPT = [
  'echo "#user ${USER:-$(id -un)}"',
  'echo "#uid $(id -u)"',
  'if [ -n "${XDG_RUNTIME_DIR:-}" ]; then echo "#xdg $XDG_RUNTIME_DIR"; fi',
  'd="/run/user/$(id -u)"',
  "if [ ! -d \"$d\" ]; then echo '#fallback missing'; elif [ -O \"$d\" ]; then echo '#fallback owned'; else echo '#fallback other'; fi",
].join('\n');

export const podmanRuntimeDir: Check = async (c) => {
  const notHere = await notHereSkip(c);
  if (notHere) return notHere;
  const probe = parseSessionProbe((await c.exec(SESSION_SCRIPT, 10_000)).stdout);
  if (probe.runtimeDir) return pass(`XDG_RUNTIME_DIR is ${probe.runtimeDir} in ${session(c)}: rootless Podman keeps its socket and runtime files there.`, say('runtimeDirSet', { dir: probe.runtimeDir, host: hostParam(c) }));
  const user = probe.user || 'this user';
  const dir = `/run/user/${probe.uid ?? '<uid>'}`;
  const facts = { user: probe.user || '?', dir, host: hostParam(c), uid: probe.uid ?? '<uid>' };
  const create = probe.uid === null ? null : `sudo install -d -m 0700 -o ${shellQuote(user)} ${shellQuote(dir)}`;
  const whyUnset = c.engine.host?.kind === 'ssh' ? ' (no systemd login session there sets it)' : '';
  const because = `XDG_RUNTIME_DIR is not set in ${session(c)}${whyUnset}. Rootless Podman keeps its socket and runtime files there; without it, Podman and the app use ${dir} when it belongs to ${user}`;
  const systemd = 'To have it set in every login, log in through a systemd login session (pam_systemd sets it).';
  switch (probe.fallback) {
    case 'owned':
      return problem(
        'warn',
        `${because}, and it does: this works as long as the Podman service uses it too.`,
        `Nothing to do if the Podman service was started with XDG_RUNTIME_DIR=${dir} (its socket is then ${dir}/podman/podman.sock). ${systemd}`,
        null,
        null,
        say('runtimeDirFallbackOwned', facts),
      );
    case 'other':
      return problem('warn', `${because}, but it belongs to another user, so Podman cannot use it for ${user}.`, `Have ${dir} given to ${user} (mode 0700). ${systemd}`, `ls -ld ${shellQuote(dir)}`, c.where, say('runtimeDirFallbackOther', facts));
    default:
      return problem(
        'warn',
        `${because}, and it does not exist: Podman then keeps its files under /tmp (podman-run-${probe.uid ?? '<uid>'}) and the app may not find its socket.`,
        `Have ${dir} made for ${user} (made by hand, it is gone after a reboot), and start the Podman service with XDG_RUNTIME_DIR=${dir}. ${systemd}`,
        create,
        create === null ? null : c.where,
        say('runtimeDirMissing', facts),
      );
  }
};

const GRAPH_DRIVER_FORMAT = '{{.Store.GraphDriverName}}';
export const STORAGE_SCRIPT = [
  `podman info --format ${shellQuote(GRAPH_DRIVER_FORMAT)} 2>&1`,
  'echo "#rc $?"',
  'if [ -e "${XDG_CONFIG_HOME:-$HOME/.config}/containers/storage.conf" ]; then echo "#storage-conf"; fi',
].join('\n');

/** Written where none exists; an existing storage.conf is edited by hand (a second [storage] table would break it). */
const WRITE_STORAGE_CONF = `mkdir -p "$HOME"/.config/containers && printf '[storage]\\ndriver = "overlay"\\n' > "$HOME"/.config/containers/storage.conf && podman system reset`;

export const podmanStorage: Check = async (c) => {
  const notHere = await notHereSkip(c);
  if (notHere) return notHere;
  const result = await c.exec(STORAGE_SCRIPT, 15_000);
  const out = result.stdout.split('\n');
  const driver = parseGraphDriver(out.filter((l) => !l.startsWith('#')).join('\n'));
  if (driver === null) {
    const said = out.find((l) => l.trim() !== '' && !l.startsWith('#'))?.trim() ?? '';
    return problem(
      'warn',
      `Could not read rootless Podman's storage driver on ${c.hostLabel}${said ? ` (${said})` : ''}.`,
      'Check it by hand:',
      `podman info --format ${shellQuote(GRAPH_DRIVER_FORMAT)}`,
      c.where,
      say(said ? 'storageUnknownSaid' : 'storageUnknown', { host: hostParam(c), said }),
    );
  }
  if (driver !== 'vfs') return pass(`Rootless Podman on ${c.hostLabel} stores images with the ${driver} driver.`, say('storageDriver', { host: hostParam(c), driver }));
  const exists = out.some((l) => l.trim() === '#storage-conf');
  return problem(
    'warn',
    `Rootless Podman on ${c.hostLabel} uses the vfs storage driver. vfs copies every layer: pulls and starts are slow and use much more disk (the AgentJet image several times over).`,
    `Switch to overlay: set driver = "overlay" in the [storage] table of ~/.config/containers/storage.conf${exists ? ' (it exists: edit it)' : ''}, then run podman system reset. ` +
      "Read before running: podman system reset deletes ALL of this user's Podman images, containers and volumes (it asks first); pull the image again afterwards. " +
      'On kernels older than 5.13, rootless overlay also needs fuse-overlayfs installed.',
    exists ? 'podman system reset' : WRITE_STORAGE_CONF,
    c.where,
    say(exists ? 'storageVfsEdit' : 'storageVfs', { host: hostParam(c) }),
  );
};

export const NETWORK_SCRIPT = [
  'for t in slirp4netns pasta; do p=$(command -v "$t" 2>/dev/null) && echo "#tool $t $p"; done',
  'if [ -e /dev/net/tun ]; then',
  '  echo "#tun-mode $(ls -l /dev/net/tun | cut -d" " -f1)"',
  "  if [ -r /dev/net/tun ] && [ -w /dev/net/tun ]; then echo '#tun ok'; else echo '#tun denied'; fi",
  "else echo '#tun missing'; fi",
  PACKAGE_MANAGER_SCRIPT,
].join('\n');

export const podmanNetwork: Check = async (c) => {
  if (c.profile.networkMode === 'host') {
    return pass('The profile uses host networking: rootless Podman needs neither slirp4netns nor /dev/net/tun for it.', say('networkHost'));
  }
  const notHere = await notHereSkip(c);
  if (notHere) return notHere;
  const probe = parseNetworkProbe((await c.exec(NETWORK_SCRIPT, 10_000)).stdout);
  // AgentJet's server listens on 0.0.0.0 (agentjet-swarm.md §1): with host networking on every
  // interface of the host, with no authentication, not only on the loopback the app's tunnel uses.
  const fallback =
    `Or switch the profile's network to "host": the swarm server then listens on port ${c.profile.port} of ${c.hostLabel} itself and the app still reaches it` +
    `${c.engine.host?.kind === 'ssh' ? " on the server's loopback, through its SSH tunnel" : ' on the loopback'}. But AgentJet's server listens on all interfaces (0.0.0.0), so anyone who can reach ${c.hostLabel} on that port can use it, and it has no password: block the port with a firewall if the network is not yours alone.`;
  const plain = `Rootless Podman publishes ports through a user-mode network helper (slirp4netns or pasta) that needs /dev/net/tun`;
  const facts = { host: hostParam(c), port: c.profile.port, tools: probe.tools.join(', '), mode: probe.tunMode ?? '–' };
  if (probe.tools.length === 0) {
    return problem(
      'fail',
      `${plain}, and neither slirp4netns nor pasta is installed on ${c.hostLabel}, so a server with a published port cannot start.`,
      `Install slirp4netns on ${c.hostLabel}. ${fallback}`,
      installCommand(probe.packageManager, 'slirp4netns'),
      c.where,
      say('networkNoHelper', facts),
    );
  }
  if (probe.tun !== 'ok') {
    const state = probe.tun === 'missing' ? 'does not exist' : `cannot be opened by this user (${probe.tunMode ?? 'no read and write permission'})`;
    return problem(
      'fail',
      `${plain}, and /dev/net/tun on ${c.hostLabel} ${state}, so ${probe.tools.join(' and ')} cannot set up the network and a server with a published port cannot start.`,
      `${probe.tun === 'missing' ? 'Load the tun module (sudo modprobe tun)' : 'Ask an administrator to make /dev/net/tun usable (most distributions ship it with mode 0666)'}. ${fallback}`,
      probe.tun === 'missing' ? 'sudo modprobe tun' : 'sudo chmod 0666 /dev/net/tun',
      c.where,
      say(probe.tun === 'missing' ? 'networkNoTun' : 'networkTunDenied', facts),
    );
  }
  return pass(`Published ports work for rootless Podman on ${c.hostLabel}: ${probe.tools.join(' and ')} installed, /dev/net/tun usable.`, say('networkOk', facts));
};
