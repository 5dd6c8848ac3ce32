import net from 'node:net';
import type { Duplex } from 'node:stream';
import Docker from 'dockerode';
import { AppError, type ErrorCode } from '../../shared/errors';
import type { DiagnosticSay, DiagnosticsReport, DiagnosticStage } from '../../shared/schemas-servers';
import { productOfVersion, type VersionBody } from '../engines/engine-product';
import { missingUserSocketDetail } from '../engines/podman-socket';
import { rootlessServiceDown } from '../engines/podman-wording';
import { agentForTransport, dockerOptionsOverAgent, transportOfAccess, transportPlace } from '../engines/ssh-docker';
import { SecretMemory, type SecretRequest, type SshAuthOutcome } from './ssh-auth';
import { connectHop, hopError, hopTarget, streamToHop, type ChainHop, type SshChainOptions } from './ssh-chain';
import type { HostKeyInfo, SshConnection } from './ssh-connection';
import { ProxyCommandProcess, proxyCommandError } from './proxy-command';
import { checkDockerAccess, checkGpus } from './remote-checks';
import { checkSlurm } from './slurm-check';
import { SKIPPED_AGENT_IDENTITIES_ONLY, SKIPPED_AGENT_NO_SOCKET, SKIPPED_KEY_FILE_PREFIX } from './profile-hops';
import { words, type StageResult } from './stage-result';

export type { StageResult } from './stage-result';

type StageName = DiagnosticStage['stage'];
const STAGES: StageName[] = ['tcp', 'handshake', 'host-key', 'auth', 'docker-version', 'docker-permission', 'gpus'];
/** A Slurm login node has no engine socket: after the login, what Slurm there says (version, partitions, GPUs). */
const SLURM_STAGES: StageName[] = ['tcp', 'handshake', 'host-key', 'auth', 'slurm'];

export interface DiagnosticsOptions {
  serverId: string;
  /** Jump hosts first, the server last (hopsOfProfile). */
  hops: ChainHop[];
  docker: { engine?: 'docker' | 'podman' | 'slurm'; transport: 'socket' | 'dial-stdio' | 'user-socket'; socketPath: string };
  askSecret: (hop: number, request: SecretRequest) => Promise<string | null>;
  verifyHostKey: (hop: number, info: HostKeyInfo) => Promise<boolean>;
  /** The host key types known_hosts trusts for a hop, asked for first (as for the real connection). */
  knownKeyTypes?: SshChainOptions['knownKeyTypes'];
  /** Per stage that waits on the network (TCP, banner, login, each remote command). Default 15 s. */
  readyTimeoutMs?: number;
  /** Secrets already typed for this server, so the test does not ask again. */
  memory?: SecretMemory;
}

export class StageFailure extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly fix: string,
    readonly detail: string | null = null,
  ) {
    super(message);
  }
}

function tcpConnect(host: string, port: number, timeoutMs: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host, port });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new AppError('SSH_TIMEOUT', `No TCP answer from ${host}:${port} within ${Math.round(timeoutMs / 1000)} s.`, { params: { diag: 'tcpTimeout', endpoint: `${host}:${port}`, seconds: Math.round(timeoutMs / 1000) } }));
    }, timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      resolve(socket);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      const why = error.code === 'ECONNREFUSED' ? 'connection refused: nothing listens on that port' : error.code === 'ENOTFOUND' ? 'the host name is unknown' : (error.code ?? error.message);
      // The same as data for the stage's words: which of the three, and the system's own code otherwise.
      const diag = error.code === 'ECONNREFUSED' ? 'tcpRefused' : error.code === 'ENOTFOUND' ? 'tcpUnknownHost' : 'tcpFailed';
      reject(new AppError('SSH_UNREACHABLE', `Cannot open a TCP connection to ${host}:${port}: ${why}.`, { cause: error, params: { diag, endpoint: `${host}:${port}`, host, ...(diag === 'tcpFailed' ? { said: error.code ?? error.message } : {}) } }));
    });
  });
}

/** The server's identification line ("SSH-2.0-OpenSSH_9.2p1 Debian-2"), the first thing an SSH server sends. */
export function readBanner(stream: Duplex, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const done = (error: AppError | null, line?: string): void => {
      clearTimeout(timer);
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', onEnd);
      if (error) reject(error);
      else resolve(line!);
    };
    // RFC 4253 lets a server send other lines before the one starting with "SSH-".
    const onData = (chunk: Buffer): void => {
      seen += chunk.toString('latin1');
      for (const line of seen.split(/\r?\n/).slice(0, -1)) if (line.startsWith('SSH-')) return done(null, line.trim());
      if (seen.length > 8192) {
        done(new AppError('SSH_DISCONNECTED', `The server sent no SSH identification line (it began with "${seen.slice(0, 40)}…"): is this port an SSH server?`, { params: { diag: 'bannerNotSsh', said: seen.slice(0, 40) } }));
      }
    };
    const onEnd = (): void =>
      done(new AppError('SSH_DISCONNECTED', 'The server closed the connection before sending its SSH identification line (sshd refused it: MaxStartups, tcp wrappers, or not an SSH server).', { params: { diag: 'bannerClosed' } }));
    const seconds = Math.round(timeoutMs / 1000);
    const timer = setTimeout(() => done(new AppError('SSH_TIMEOUT', `The server sent no SSH identification line within ${seconds} s: is this port an SSH server?`, { params: { diag: 'bannerTimeout', seconds } })), timeoutMs);
    stream.on('data', onData);
    stream.once('end', onEnd);
    stream.once('error', onEnd);
  });
}

/** The words of each fix below, as a key of the renderer's (`diag.sayFix.<key>`). */
const HOST_KEY_FIX_KEY: Partial<Record<ErrorCode, string>> = {
  SSH_HOST_KEY_UNKNOWN: 'hostKeyUnknown',
  SSH_HOST_KEY_CHANGED: 'hostKeyChanged',
  SSH_HOST_KEY_REVOKED: 'hostKeyRevoked',
  SSH_HOST_KEY_REJECTED: 'hostKeyRejected',
};
const AUTH_FIX_KEY: Partial<Record<ErrorCode, string>> = {
  SSH_AUTH_FAILED: 'authFailed',
  SSH_PASSPHRASE_NEEDED: 'passphraseNeeded',
  SSH_PASSPHRASE_WRONG: 'passphraseWrong',
  SSH_TIMEOUT: 'authTimeout',
};

const HOST_KEY_FIX: Partial<Record<ErrorCode, string>> = {
  SSH_HOST_KEY_UNKNOWN: 'Compare the fingerprint with `ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub` run on the server, then trust the key.',
  SSH_HOST_KEY_CHANGED: 'If the server was reinstalled, replace the key in known_hosts explicitly; otherwise do not connect: someone may be intercepting the connection.',
  SSH_HOST_KEY_REVOKED: "Ask the server's administrator for its new host key; the revoked one is never accepted.",
  SSH_HOST_KEY_REJECTED: 'The key was not trusted. Test again and accept it if the fingerprint matches the one on the server.',
};

const AUTH_FIX: Partial<Record<ErrorCode, string>> = {
  SSH_AUTH_FAILED: 'Check the user name; put your public key in ~/.ssh/authorized_keys on the server (ssh-copy-id), or check the password.',
  SSH_PASSPHRASE_NEEDED: 'Enter the key\'s passphrase when asked, or add the key to ssh-agent (ssh-add <key file>).',
  SSH_PASSPHRASE_WRONG: 'Type the passphrase again; `ssh-keygen -y -f <key file>` checks it.',
  SSH_TIMEOUT: 'The login did not finish in time: check the network, or answer the prompts sooner.',
};

function authDetail(outcomes: readonly SshAuthOutcome[]): string {
  const used = [...outcomes].reverse().find((o) => o.result === 'tried');
  return used ? `${used.attempt} (${used.detail})` : 'logged in';
}

/** The same as data: which method logged in, and with which agent socket or key file. */
function authWords(outcomes: readonly SshAuthOutcome[]): DiagnosticSay {
  const used = [...outcomes].reverse().find((o) => o.result === 'tried');
  if (!used) return words('authDone');
  if (used.attempt === 'agent') return words('authAgent', { socket: used.where ?? '' });
  if (used.attempt === 'key') return words('authKey', { path: used.where ?? '' });
  return words(used.attempt === 'password' ? 'authPassword' : 'authKeyboard');
}

/**
 * The auth methods a hop did not offer (profile-hops' reasons), as codes the renderer words
 * (`diag.notTried.<code>`), comma-separated: a parameter is a string or a number.
 */
function notTriedCodes(skipped: readonly string[] | undefined): string {
  return (skipped ?? [])
    .map((reason) =>
      reason === SKIPPED_AGENT_NO_SOCKET ? 'agentNoSocket' : reason === SKIPPED_AGENT_IDENTITIES_ONLY ? 'agentIdentitiesOnly' : reason.startsWith(SKIPPED_KEY_FILE_PREFIX) ? 'noKeyFile' : null,
    )
    .filter((code) => code !== null)
    .join(',');
}

/**
 * "Test connection": opens its own connection (each ProxyJump hop in turn), runs the stages in order
 * and closes everything. A failure skips the stages after it, with one exception: when the Docker call
 * fails, the socket permission check still runs, because it is what tells *why*. When a jump host fails,
 * the report's stages are that hop's and `target` names it.
 */
export async function runDiagnostics(options: DiagnosticsOptions): Promise<DiagnosticsReport> {
  const timeoutMs = options.readyTimeoutMs ?? 15_000;
  const memory = options.memory ?? new SecretMemory();
  const hops = options.hops;
  if (hops.length === 0) throw new Error('runDiagnostics needs at least one hop');
  const results = new Map<StageName, DiagnosticStage>();
  const connections: SshConnection[] = [];
  let target = hopTarget(hops[hops.length - 1]!);

  const record = (stage: StageName, started: number, result: StageResult, ended = Date.now()): boolean => {
    results.set(stage, {
      stage,
      status: result.status,
      detail: result.detail,
      error: result.error ?? null,
      fix: result.fix ?? null,
      durationMs: Math.max(0, ended - started),
      ...(result.say ? { say: result.say } : {}),
      ...(result.sayFix ? { sayFix: result.sayFix } : {}),
    });
    return result.status !== 'fail';
  };
  // The error is the SSH layer's (its own English text, titled by its code in the renderer), worded here
  // when it says what it was as data (`params.diag`: the TCP and banner failures of this file); the fix is ours.
  const fail = (stage: StageName, started: number, error: unknown, fix: string, sayFix: DiagnosticSay): false => {
    const app = error instanceof AppError ? error : new AppError('SSH_DISCONNECTED', String((error as Error)?.message ?? error));
    const { diag, ...facts } = app.params ?? {};
    const say = typeof diag === 'string' ? words(diag, facts) : undefined;
    return record(stage, started, { status: 'fail', detail: null, error: { code: app.code, message: app.message }, fix, sayFix, ...(say ? { say } : {}) }) as false;
  };

  /** tcp → handshake → host-key → auth for hop `index`; false when one failed (then `target` names that hop). */
  const connectStages = async (index: number): Promise<boolean> => {
    const hop = hops[index]!;
    const previous = connections[index - 1];
    const via = previous ? ` via ${previous.target}` : '';
    target = hopTarget(hop);
    results.clear();
    let t = Date.now();
    let probe: Duplex;
    // A ProxyCommand hop has no TCP of ours: the probe is a run of the command, read up to the server's banner.
    const proxy = !previous && hop.proxyCommand ? new ProxyCommandProcess(hop.proxyCommand) : null;
    try {
      probe = proxy ? proxy.stream : previous ? await streamToHop(previous, hops, index) : await tcpConnect(hop.host, hop.port, timeoutMs);
    } catch (error) {
      return fail('tcp', t, hopError(error, index, hops), `Check the host name and port${previous ? ` as seen from ${previous.target}` : ''}, that sshd runs there, and that no firewall blocks the port.`, previous ? words('tcpVia', { via: previous.target }) : words('tcp'));
    }
    const endpoint = `${hop.host}:${hop.port}`;
    const ms = Date.now() - t;
    record('tcp', t, {
      status: 'pass',
      detail: proxy ? `${endpoint} through its ProxyCommand` : `${endpoint} answered in ${ms} ms${via}`,
      say: proxy ? words('tcpProxy', { endpoint }) : previous ? words('tcpAnsweredVia', { endpoint, ms, via: previous.target }) : words('tcpAnswered', { endpoint, ms }),
    });
    t = Date.now();
    try {
      const banner = await readBanner(probe, timeoutMs);
      record('handshake', t, { status: 'pass', detail: banner.replace(/^SSH-2\.0-/, ''), say: words('banner', { said: banner.replace(/^SSH-2\.0-/, '') }) });
    } catch (error) {
      const exit = proxy ? await proxy.exitedWithin(2000) : null;
      if (exit) return fail('handshake', t, hopError(proxyCommandError(exit, hopTarget(hop)), index, hops), 'Fix the ProxyCommand in the server settings; run it in a terminal with %h and %p filled in to see why it stops.', words('proxyCommand'));
      return fail('handshake', t, hopError(error, index, hops), 'Check that this port is an SSH server (sshd) and that it accepts more connections (MaxStartups).', words('handshake'));
    } finally {
      probe.destroy();
      proxy?.stop();
    }

    t = Date.now();
    let keySeen: HostKeyInfo | null = null;
    let keyAccepted = false;
    let authStarted = 0;
    const outcomes: SshAuthOutcome[] = [];
    try {
      const connection = await connectHop(
        {
          hops,
          askSecret: options.askSecret,
          readyTimeoutMs: timeoutMs,
          ...(options.knownKeyTypes ? { knownKeyTypes: options.knownKeyTypes } : {}),
          verifyHostKey: async (hopIndex, info) => {
            keySeen = info;
            // The key exchange and the check (the user's answer included) count as host-key; login after it as auth.
            keyAccepted = await options.verifyHostKey(hopIndex, info);
            authStarted = Date.now();
            return keyAccepted;
          },
          onAuthAttempt: (_hop, outcome) => outcomes.push(outcome),
        },
        index,
        previous,
        memory,
      );
      connections.push(connection);
      const key = connection.hostKey;
      record('host-key', t, { status: 'pass', detail: `${key.keyType} ${key.fingerprint}`, say: words('hostKey', { keyType: key.keyType, fingerprint: key.fingerprint }) }, authStarted || undefined);
      record('auth', authStarted || t, { status: 'pass', detail: authDetail(connection.authOutcomes), say: authWords(connection.authOutcomes) });
      return true;
    } catch (error) {
      const app = hopError(error, index, hops);
      const seen = keySeen as HostKeyInfo | null;
      if (!seen || !keyAccepted) {
        const fix = HOST_KEY_FIX[app.code] ?? 'The SSH handshake did not finish: check that the server is an OpenSSH server and the network between you.';
        return fail('host-key', t, app, fix, words(HOST_KEY_FIX_KEY[app.code] ?? 'handshakeUnfinished'));
      }
      record('host-key', t, { status: 'pass', detail: `${seen.keyType} ${seen.fingerprint}`, say: words('hostKey', { keyType: seen.keyType, fingerprint: seen.fingerprint }) }, authStarted);
      const skipped = hop.skippedAuth?.length ? ` Not tried: ${hop.skippedAuth.join('; ')}.` : '';
      const notTried = notTriedCodes(hop.skippedAuth);
      return fail('auth', authStarted, app, (AUTH_FIX[app.code] ?? 'Check the login settings of this server.') + skipped, words(AUTH_FIX_KEY[app.code] ?? 'authOther', notTried ? { notTried } : {}));
    }
  };

  try {
    let ok = true;
    for (let index = 0; index < hops.length && ok; index++) ok = await connectStages(index);
    const server = connections.length === hops.length ? connections[connections.length - 1] : undefined;
    const engine = options.docker.engine ?? 'docker';
    if (server && engine === 'slurm') {
      const t = Date.now();
      record('slurm', t, await checkSlurm(server, hops[hops.length - 1]!.username));
    } else if (server && engine !== 'slurm') {
      const docker = { ...options.docker, engine };
      const user = hops[hops.length - 1]!.username;
      let t = Date.now();
      const podman = engine === 'podman';
      const version = await dockerVersion(server, docker, user, timeoutMs).then(
        ({ detail, say }): StageResult => ({ status: 'pass', detail, say }),
        (error: unknown): StageResult => {
          const app = error instanceof AppError ? error : new AppError('ENGINE_UNREACHABLE', String(error));
          const fix = `See the ${podman ? '' : 'Docker '}socket permission stage below for the cause.`;
          return { status: 'fail', detail: null, error: { code: app.code, message: app.message }, fix, sayFix: words('seePermission') };
        },
      );
      record('docker-version', t, version);
      t = Date.now();
      const access = await checkDockerAccess(server, docker, user, timeoutMs);
      record('docker-permission', t, access);
      if (version.status === 'fail' && access.status === 'pass') {
        // The socket is there and ours to use, yet the engine did not answer: the service itself is the problem.
        const stage = results.get('docker-version')!;
        const rootless = podman && options.docker.transport === 'user-socket';
        stage.fix = podman
          ? rootless
            ? rootlessServiceDown(server.target, user)
            : `Podman's API service does not answer on ${server.target}: check it with \`sudo systemctl status podman.socket\` there.`
          : `Docker does not answer on ${server.target}: check it with \`sudo systemctl status docker\` there.`;
        stage.sayFix = words(rootless ? 'rootlessDown' : podman ? 'podmanServiceDown' : 'dockerServiceDown', { host: server.target, user });
      } else if (version.status === 'fail' && access.fix) {
        const stage = results.get('docker-version')!;
        stage.fix = access.fix;
        if (access.sayFix) stage.sayFix = access.sayFix;
        else delete stage.sayFix;
      }
      if (version.status !== 'fail' && access.status !== 'fail') {
        t = Date.now();
        record('gpus', t, await checkGpus(server, timeoutMs));
      }
    }
  } finally {
    await Promise.allSettled([...connections].reverse().map((c) => c.close()));
  }

  // A failed jump host reports its own connection stages; the list is the target's kind either way.
  const stages = ((options.docker.engine ?? 'docker') === 'slurm' ? SLURM_STAGES : STAGES).map(
    (stage): DiagnosticStage => results.get(stage) ?? { stage, status: 'skipped', detail: null, error: null, fix: null, durationMs: 0 },
  );
  return { serverId: options.serverId, target, stages, finishedAt: new Date().toISOString() };
}

/**
 * `GET /version` over the same transport the engine uses (streamlocal to the socket or to the user's
 * rootless Podman socket, or dial-stdio), naming the product that answered: a server set up as
 * Docker that answers as Podman is reported as Podman (the app treats it so).
 */
async function dockerVersion(server: SshConnection, docker: DiagnosticsOptions['docker'], user: string, timeoutMs: number): Promise<{ detail: string; say: DiagnosticSay }> {
  const transport = transportOfAccess(docker);
  const where = transport.kind === 'dial-stdio' ? '`docker system dial-stdio`' : transportPlace(transport, user);
  const said = docker.engine === 'podman' ? 'Podman' : 'Docker';
  const describeFailure = (message: string): AppError => new AppError('ENGINE_UNREACHABLE', `${said} on ${server.target} did not answer through ${where} (${message}).`);
  const agent = agentForTransport(server, transport, describeFailure, (answer) =>
    new AppError('ENGINE_UNREACHABLE', `${rootlessServiceDown(server.target, user)} (${missingUserSocketDetail(answer)})`),
  );
  try {
    const client = new Docker({ ...dockerOptionsOverAgent(agent), timeout: timeoutMs });
    const v = (await client.version()) as Docker.DockerVersion & VersionBody;
    const answered = productOfVersion(v) === 'podman' ? 'Podman' : 'Docker';
    const differs = answered === said ? '' : `; the server is set up as ${said}, but ${answered} answers: the app treats it as ${answered}`;
    // The place as data: the socket's path, dial-stdio, or the user's rootless socket (worded by the renderer).
    const place = transport.kind === 'socket' ? 'Socket' : transport.kind === 'dial-stdio' ? 'DialStdio' : 'UserSocket';
    const facts = { product: answered, version: v.Version, apiVersion: v.ApiVersion, path: transport.kind === 'socket' ? transport.path : '', user, configured: said };
    return { detail: `${answered} ${v.Version} (API ${v.ApiVersion}) through ${where}${differs}`, say: words(`version${place}${differs ? 'Differs' : ''}`, facts) };
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw describeFailure((error as Error).message);
  } finally {
    agent.destroy();
  }
}
