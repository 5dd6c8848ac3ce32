import { randomBytes } from 'node:crypto';
import { AppError } from '../../shared/errors';
import type { DoctorReport, Profile, ProfileCommand, ProfileInput, ProfileStartRequest, ProfileView } from '../../shared/schemas-profiles';
import { LABEL_CONFIG_HASH, LABEL_PROFILE, type ContainerSummary } from '../engines/container-engine';
import type { EngineRegistry } from '../engines/engine-registry';
import type { EventSink } from '../events';
import { isQueued } from '../swarm/queued-start';
import { toSwarmContainer, type SwarmContainers } from '../swarm/swarm-containers';
import { revealRefs } from '../secrets/secret-env';
import type { SecretVaultApi } from '../secrets/vault-api';
import type { Logger } from '../util/logger';
import { dockerRunCommand, nativeRunCommand, nativeRunDir, SECRET_MASK } from './docker-run-command';
import type { ProfileStore } from './profile-store';
import { SecretMemory } from './secret-memory';
import { slurmProfileCommand } from './slurm-command';
import { buildProfileSpec, configHashOf, missingSecrets, usesHomePaths } from './spec-builder';

export interface ProfileRuntimeOptions {
  store: ProfileStore;
  engines: EngineRegistry;
  containers: SwarmContainers;
  /** The preflight doctor (`DoctorModule.run`): a report, emitted and kept by the doctor itself. */
  runDoctor: (profileId: string) => Promise<DoctorReport>;
  events: EventSink;
  logger: Logger;
  appVersion: string;
  /** Where `secretRefs` are read at Start; without one (unit tests) a reference fails as SECRET_NOT_FOUND. */
  vault?: SecretVaultApi;
}

/** The profile's secret env names that refer to a vault secret (references for other names are ignored). */
export function secretRefsOf(profile: Profile): Record<string, string> {
  const refs = profile.secretRefs ?? {};
  return Object.fromEntries(profile.secretEnv.flatMap((name) => (refs[name] ? [[name, refs[name]]] : [])));
}

const LIVE_STATES = new Set(['running', 'restarting', 'paused']);
/**
 * Running, or waiting in a queue for its turn (a Slurm job): either way the profile's one server. Start
 * again returns it (no second job in the queue), Stop cancels it, Remove and moving the profile wait for it.
 */
const isLive = (c: ContainerSummary) => LIVE_STATES.has(c.state) || isQueued(c);

/** The profile's one container: the live one, else the newest (an exited one still says how it ended). */
function pickContainer(containers: ContainerSummary[]): ContainerSummary | null {
  const live = containers.find(isLive);
  if (live) return live;
  return [...containers].sort((a, b) => b.createdAt.localeCompare(a.createdAt))[0] ?? null;
}

/**
 * What runs for each swarm profile: one container (or native process) per profile, found on the
 * profile's engine by its `io.agentswarm.profile` label, compared with the profile by config hash.
 * Secret values live in `SecretMemory` only; nothing here puts one in a view, error or log entry.
 */
export class ProfileRuntime {
  private readonly secrets = new SecretMemory();
  /** Profiles with a start, stop, restart or remove under way: a second one would race the first. */
  private readonly busy = new Set<string>();
  private readonly homes = new Map<string, Promise<string | null>>();
  private publishing: Promise<void> | null = null;
  private publishAgain = false;
  private disposed = false;

  constructor(private readonly options: ProfileRuntimeOptions) {}

  // ------------------------------------------------------------ views

  async list(): Promise<ProfileView[]> {
    const profiles = this.options.store.list();
    const byEngine = new Map<string, Promise<ContainerSummary[]>>();
    for (const engineId of new Set(profiles.map((p) => p.engineId))) {
      // An engine that is gone or unreachable shows its profiles without a container, not an error.
      byEngine.set(engineId, this.options.containers.listOurs(engineId).catch(() => []));
    }
    return Promise.all(
      profiles.map(async (profile) => {
        const ours = (await byEngine.get(profile.engineId)!).filter((c) => c.labels[LABEL_PROFILE] === profile.id);
        return this.viewOf(profile, ours);
      }),
    );
  }

  async view(profileId: string): Promise<ProfileView> {
    const profile = this.options.store.get(profileId);
    return this.viewOf(profile, await this.containersOf(profile).catch(() => []));
  }

  private viewOf(profile: Profile, containers: ContainerSummary[]): ProfileView {
    const container = pickContainer(containers);
    const configHash = configHashOf(profile);
    const containerConfigHash = container ? (container.labels[LABEL_CONFIG_HASH] ?? null) : null;
    return {
      profile,
      runtime: {
        container: container ? toSwarmContainer(profile.engineId, container) : null,
        drifted: container !== null && isLive(container) && containerConfigHash !== configHash,
        configHash,
        containerConfigHash,
        secretsKnown: this.knownSecretNames(profile),
      },
    };
  }

  /** Names with a value for the next start: typed earlier in this run, or taken from the vault (the start dialog does not ask for those). */
  private knownSecretNames(profile: Profile): string[] {
    const refs = secretRefsOf(profile);
    const typed = new Set(this.secrets.known(profile.id, profile.secretEnv));
    return profile.secretEnv.filter((name) => name in refs || typed.has(name));
  }

  private containersOf(profile: Profile): Promise<ContainerSummary[]> {
    return this.options.containers.listOurs(profile.engineId, { [LABEL_PROFILE]: profile.id });
  }

  /**
   * Sends `profiles:changed` with every view. Coalesced: while one snapshot is being read, further
   * changes ask for one more afterwards, so the last event always reflects the last change.
   */
  publish(): void {
    if (this.disposed) return;
    if (this.publishing) {
      this.publishAgain = true;
      return;
    }
    this.publishing = (async () => {
      do {
        this.publishAgain = false;
        try {
          this.options.events.emit('profiles:changed', await this.list());
        } catch (error) {
          this.options.logger.warn('could not list the swarm profiles for profiles:changed', { message: String((error as Error)?.message ?? error) });
        }
      } while (this.publishAgain && !this.disposed);
      this.publishing = null;
    })();
  }

  /** Resolves once no snapshot is being sent (tests and shutdown). */
  async settled(): Promise<void> {
    while (this.publishing) await this.publishing;
  }

  // ------------------------------------------------------------ profile CRUD

  async add(input: ProfileInput): Promise<ProfileView> {
    const profile = await this.options.store.add(input);
    return this.view(profile.id);
  }

  async update(profileId: string, input: ProfileInput): Promise<ProfileView> {
    // Exclusive like Start: a Start in another window between the check below and the save would
    // create the container on the old engine, where the moved profile never looks again.
    return this.exclusive(profileId, async () => {
      const old = this.options.store.get(profileId);
      if (old.engineId !== input.engineId) {
        // The profile would lose sight of its container on the old engine, which would keep running unseen.
        const live = (await this.containersOf(old).catch(() => [])).find(isLive);
        if (live) throw new AppError('CONTAINER_CONFLICT', `"${old.label}" still ${isQueued(live) ? `waits in the queue (job ${live.id})` : 'runs'} on its engine. Stop it before moving the profile to another engine.`);
      }
      await this.options.store.update(profileId, input);
      return this.view(profileId);
    });
  }

  async remove(profileId: string): Promise<{ removed: true }> {
    return this.exclusive(profileId, async () => {
      const profile = this.options.store.get(profileId);
      const containers = await this.containersOf(profile);
      const live = containers.find(isLive);
      if (live && isQueued(live)) throw new AppError('CONTAINER_CONFLICT', `"${profile.label}" waits in the queue (job ${live.id}). Stop it first (that cancels the job), then remove the profile.`);
      if (live) {
        throw new AppError('CONTAINER_CONFLICT', `"${profile.label}" is running. Stop its server first (that ends training for every client of it), then remove the profile.`);
      }
      for (const c of containers) await this.options.containers.remove(profile.engineId, c.id);
      await this.options.store.remove(profileId);
      this.secrets.forget(profileId);
      return { removed: true as const };
    });
  }

  // ------------------------------------------------------------ start, stop, restart

  async start(request: ProfileStartRequest): Promise<ProfileView> {
    return this.exclusive(request.profileId, () => this.startUnlocked(request));
  }

  async stop(profileId: string): Promise<ProfileView> {
    return this.exclusive(profileId, async () => {
      await this.stopUnlocked(this.options.store.get(profileId));
      return this.view(profileId);
    });
  }

  /** Stop (when running), then start from the profile as it is now: a drifted container is replaced. */
  async restart(request: ProfileStartRequest): Promise<ProfileView> {
    return this.exclusive(request.profileId, async () => {
      const profile = this.options.store.get(request.profileId);
      // Secrets and doctor first, while the server still runs: a restart that stopped the server and
      // then could not start it would be worse than none. (The doctor counts the profile's own
      // server on the port as fine.)
      await this.secretsFor(profile, request.secrets);
      if (!request.skipDoctor) await this.requireDoctor(profile);
      await this.stopUnlocked(profile);
      return this.startUnlocked({ ...request, replaceDrifted: true, skipDoctor: true });
    });
  }

  private async stopUnlocked(profile: Profile): Promise<void> {
    for (const c of (await this.containersOf(profile)).filter(isLive)) await this.options.containers.stop(profile.engineId, c.id);
  }

  private async startUnlocked(request: ProfileStartRequest): Promise<ProfileView> {
    const profile = this.options.store.get(request.profileId);
    const secrets = await this.secretsFor(profile, request.secrets);
    const hash = configHashOf(profile);
    const containers = await this.containersOf(profile);
    const live = containers.filter(isLive);
    if (live.length > 0 && live.every((c) => c.labels[LABEL_CONFIG_HASH] === hash)) return this.view(profile.id);
    if (live.length > 0 && !request.replaceDrifted) {
      throw new AppError(
        'PROFILE_DRIFTED',
        `"${profile.label}" runs with settings from before its last edit. Choose "Restart with new settings" to replace it, or keep it running as it is.`,
      );
    }
    if (!request.skipDoctor) await this.requireDoctor(profile);
    for (const c of live) await this.options.containers.stop(profile.engineId, c.id);
    // One container per profile: the old one (exited, or just stopped) goes before the new one comes.
    for (const c of containers) await this.options.containers.remove(profile.engineId, c.id);
    const home = await this.homeFor(profile);
    const spec = buildProfileSpec(profile, { appVersion: this.options.appVersion, secrets, home, nameSuffix: randomBytes(3).toString('hex') });
    await this.options.containers.startSpec(profile.engineId, spec);
    return this.view(profile.id);
  }

  /**
   * The secret values for this start: given now, else the vault secret the profile refers to, else
   * remembered from earlier in this run. SECRET_MISSING names what lacks one; a locked vault or a
   * missing secret names the variable (VAULT_LOCKED / SECRET_NOT_FOUND).
   */
  private async secretsFor(profile: Profile, given: Readonly<Record<string, string>>): Promise<Record<string, string>> {
    const typed = this.secrets.merge(profile.id, profile.secretEnv, given);
    // Only typed values are remembered (kept even when another name lacks one: the user types only
    // what is still missing); vault values are read again at every start, so a replaced key is used.
    this.secrets.remember(profile.id, typed);
    const refs = Object.fromEntries(Object.entries(secretRefsOf(profile)).filter(([name]) => !given[name]));
    const fromVault = await this.revealRefs(profile, refs);
    const values = { ...typed, ...fromVault };
    const missing = missingSecrets(profile, values);
    if (missing.length > 0) {
      throw new AppError('SECRET_MISSING', `"${profile.label}" needs a value for ${missing.join(', ')} to start. Enter it in the start dialog; the app keeps it in memory only until it quits.`);
    }
    return values;
  }

  private async revealRefs(profile: Profile, refs: Record<string, string>): Promise<Record<string, string>> {
    if (Object.keys(refs).length === 0) return {};
    const label = `"${profile.label}"`;
    if (!this.options.vault) {
      const names = Object.keys(refs).join(', ');
      throw new AppError('SECRET_NOT_FOUND', `${label} takes ${names} from the vault, and this app has no vault. Type the value in the start dialog instead.`);
    }
    return revealRefs(this.options.vault, refs, label);
  }

  private async requireDoctor(profile: Profile): Promise<void> {
    const report = await this.options.runDoctor(profile.id);
    const failed = report.checks.filter((c) => c.status === 'fail');
    if (report.verdict === 'fail' || failed.length > 0) {
      const names = failed.map((c) => `${c.id} (${c.detail})`).join('; ');
      throw new AppError('DOCTOR_FAILED', `The preflight doctor found problems for "${profile.label}": ${names || 'see its report'}. Fix them, or choose "Start anyway".`);
    }
  }

  /**
   * `$HOME` of the engine's host, asked once per engine (Docker does not expand `~`, so the app
   * does). Only asked when a path uses `~/`; an engine without a host cannot have such paths.
   */
  private async homeFor(profile: Profile): Promise<string | null> {
    if (!usesHomePaths(profile) || profile.mode === 'native') return null;
    const engine = this.options.engines.get(profile.engineId);
    if (!engine.host) {
      throw new AppError('VALIDATION_FAILED', `"${profile.label}" uses ~/ paths, but the app cannot ask ${engine.summary.label} for its home folder. Use absolute paths.`);
    }
    let home = this.homes.get(profile.engineId);
    if (!home) {
      const host = engine.host;
      home = host.exec('printf %s "$HOME"', { timeoutMs: 15_000 }).then((r) => {
        const value = r.stdout.trim();
        if (r.code !== 0 || !value.startsWith('/')) throw new AppError('VALIDATION_FAILED', `Could not read the home folder on ${host.label} to expand ~/ paths. Use absolute paths.`);
        return value;
      });
      // A failed answer is not kept: the next Start asks again.
      home.catch(() => this.homes.delete(profile.engineId));
      this.homes.set(profile.engineId, home);
    }
    return home;
  }

  /** An engine reconnected or went away: its host (an edited SSH login) may have another home now. */
  engineChanged(engineId: string): void {
    this.homes.delete(engineId);
    this.publish();
  }

  private async exclusive<T>(profileId: string, work: () => Promise<T>): Promise<T> {
    // Two windows pressing Start (or Start and Remove) at once would both see "no container" and act.
    if (this.busy.has(profileId)) throw new AppError('CONTAINER_CONFLICT', 'This profile is already being started, stopped or removed. Wait for it to finish.');
    this.busy.add(profileId);
    try {
      return await work();
    } finally {
      this.busy.delete(profileId);
      this.publish();
    }
  }

  // ------------------------------------------------------------ "Show the command"

  async command(profileId: string): Promise<ProfileCommand> {
    const profile = this.options.store.get(profileId);
    const engine = this.options.engines.get(profile.engineId);
    // A Slurm login node runs no container: its "command" is the job script and its sbatch line.
    if (engine.summary.kind === 'slurm') return slurmProfileCommand(profile, { appVersion: this.options.appVersion, loginNode: engine.summary.label });
    // Masked values: the command is shown and copied, the real ones never leave memory.
    const masked = Object.fromEntries(profile.secretEnv.map((name) => [name, SECRET_MASK]));
    const home = await this.homeFor(profile).catch(() => null);
    const spec = buildProfileSpec(profile, { appVersion: this.options.appVersion, secrets: masked, home, nameSuffix: 'manual' });
    const notes: string[] = [];
    // Not this computer's shell: an SSH server, or an engine the app has no shell on (DOCKER_HOST=tcp://…).
    const remote = engine.host?.kind !== 'local';
    if (remote) notes.push(`Run it on ${engine.summary.label}, where this engine runs, not on this computer.`);
    if (profile.secretEnv.length > 0) notes.push(`Replace ${SECRET_MASK} with the value of ${profile.secretEnv.join(', ')}; the app never shows secret values.`);
    if (profile.mode === 'native') {
      const dir = nativeRunDir(spec.name);
      notes.push(`Its output goes to ${dir}/server.log and its process id to ${dir}/pid; stop it with: kill "$(cat ${dir}/pid)". Never use --autokill: it kills every python process on the host.`);
      notes.push('A server started by hand this way is not listed by the app (the app records more in its run folder): start it from the app to see it here.');
      return { command: nativeRunCommand(spec, profile.secretEnv), notes };
    }
    notes.push('The labels let the app find a server started with this command, as if it had started it itself.');
    // What answers decides (a server added as Docker may be Podman); while unknown, the kind does.
    const health = await engine.health().catch(() => null);
    const product = health?.product ?? (engine.summary.kind === 'podman' ? 'podman' : 'docker');
    return { command: dockerRunCommand(spec, profile.secretEnv, product), notes };
  }

  dispose(): void {
    this.disposed = true;
    this.secrets.clear();
  }
}
