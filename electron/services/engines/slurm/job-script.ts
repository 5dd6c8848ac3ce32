import { AppError } from '../../../shared/errors';
import { slurmTimeLimitSeconds, type SlurmJobIdentity, type SlurmJobOptions } from '../../../shared/schemas-slurm';
import { LABEL_APP_VERSION, LABEL_MANAGED, LABEL_PROFILE, shellQuote } from '../container-engine';

/**
 * The batch job script that runs one swarm server on a Slurm compute node, as readable text the user
 * sees before submitting ("Show the command") and may edit. Pure functions: the quoting is unit-tested.
 *
 * Layout, in the login user's home (shared with the compute nodes, as on every cluster we know of: the
 * node writes the endpoint file that the app reads through the login node):
 *
 *   ~/.agentswarm/slurm/agentswarm-<profile>/job.sh        this script (sbatch runs it from this folder)
 *                                           env           `export NAME='value'` lines, 0600, read and deleted at start
 *                                           out/<id>.out  the job's output (`--output`, relative to the submit folder;
 *                                                         the folder must exist: Slurm fails the job otherwise)
 *                                           endpoint      job=, node=, host=, port=, started= lines, written on the node
 *                                           warning       "<epoch s> <seconds>" once the time-limit warning arrived
 */

/** Job names of the app start with this; the rest is the profile id. */
export const SLURM_JOB_PREFIX = 'agentswarm-';
/** The first port tried on the node; the next free one above it is taken (shared nodes: 10086 may be in use). */
export const SLURM_PORT_BASE = 10086;
/** How many ports above the base the job tries before it gives up. */
export const SLURM_PORT_SPAN = 100;
/**
 * `podman stop -t`: the container's grace time at most. Slurm SIGKILLs the script KillWait s after the TERM of a
 * cancel or the time limit; a stop still running then never removes the container, which outlives the job (conmon
 * escapes it). So the script shortens it to KillWait - 3 s where KillWait is short (the test bed's 5 s: 2 s).
 */
export const PODMAN_STOP_SECONDS = 10;
/** Every line the job script itself writes to its output starts with this (the app finds them in the tail). */
export const JOB_LINE_MARK = '[agentswarm]';

const TIME_WARNING = /\[agentswarm\] time limit in (\d+) s\b/;
/** Plain logs from the server (no colour codes in the output file). */
const PLAIN_LOG_ENV = 'export NO_COLOR=1 LOGURU_COLORIZE=NO';

export function slurmJobName(profileId: string): string {
  return `${SLURM_JOB_PREFIX}${profileId}`;
}

/**
 * `agentswarm profile=<id> app=<version>`. Lowercase keys on purpose: `scontrol -o show job` prints
 * `Key=value` pairs with CamelCase keys, and its parser tells our words inside Comment= from its own by case.
 */
export function slurmJobComment(identity: Pick<SlurmJobIdentity, 'profileId' | 'appVersion'>): string {
  return `agentswarm profile=${identity.profileId} app=${identity.appVersion}`;
}

/** The profile id and app version a job comment names; null for a comment the app did not write. */
export function parseJobComment(comment: string | null | undefined): { profileId: string; appVersion: string } | null {
  const m = /^agentswarm profile=([a-z0-9][a-z0-9-]{0,63}) app=([0-9A-Za-z][0-9A-Za-z.+-]{0,63})$/.exec((comment ?? '').trim());
  return m ? { profileId: m[1]!, appVersion: m[2]! } : null;
}

/** The job's folder as a user types it (help texts, "Show the command"). */
export function slurmStateDir(profileId: string): string {
  return `~/.agentswarm/slurm/${slurmJobName(assertProfileId(profileId))}`;
}

/** The same folder as a shell word for scripts the app runs: $HOME expands on the host, the name is quoted. */
export function slurmStateDirWord(profileId: string): string {
  return `"$HOME"/.agentswarm/slurm/${shellQuote(slurmJobName(assertProfileId(profileId)))}`;
}

/** Where Slurm writes the output of job `jobId` (the `--output` pattern below, expanded). */
export function slurmOutputPath(profileId: string, jobId: string): string {
  return `${slurmStateDir(profileId)}/out/${jobId}.out`;
}

/** The seconds a "time limit in N s" line of the job announces; null for any other line. */
export function parseTimeWarning(line: string): number | null {
  const m = TIME_WARNING.exec(line);
  return m ? Number(m[1]) : null;
}

function assertProfileId(profileId: string): string {
  if (!/^[a-z0-9][a-z0-9-]{0,63}$/.test(profileId)) {
    throw new AppError('VALIDATION_FAILED', `"${profileId}" cannot name a Slurm job: profile ids are lowercase letters, digits and "-".`);
  }
  return profileId;
}

function assertEnvName(name: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,127}$/.test(name)) throw new AppError('VALIDATION_FAILED', `"${name}" is not a valid environment variable name.`);
  return name;
}

/** The `#SBATCH` options, in the order a reader expects them (values are validated by SlurmJobOptions). */
export function sbatchOptions(identity: SlurmJobIdentity, options: SlurmJobOptions): string[] {
  const lines = [
    `--job-name=${slurmJobName(assertProfileId(identity.profileId))}`,
    // sbatch reads quoted #SBATCH arguments; the comment is plain words without quotes.
    `--comment="${slurmJobComment(identity)}"`,
    '--output=out/%j.out',
    '--nodes=1',
    '--ntasks=1',
  ];
  if (options.partition) lines.push(`--partition=${options.partition}`);
  if (options.account) lines.push(`--account=${options.account}`);
  if (options.qos) lines.push(`--qos=${options.qos}`);
  if (options.timeLimit) lines.push(`--time=${options.timeLimit}`);
  if (options.gpus) {
    const { flag, count, type } = options.gpus;
    lines.push(flag === 'gres' ? `--gres=gpu:${type ? `${type}:` : ''}${count}` : `--gpus=${type ? `${type}:` : ''}${count}`);
  }
  if (options.cpusPerTask) lines.push(`--cpus-per-task=${options.cpusPerTask}`);
  if (options.memoryGb) lines.push(`--mem=${options.memoryGb}G`);
  lines.push(`--signal=B:USR1@${options.warnBeforeLimitSeconds}`);
  // A requeued job would start again without its env file (deleted at the first start): fail instead.
  lines.push('--no-requeue');
  return lines;
}

/** The exact command the app runs on the login node (shown to the user as "the command"). */
export function sbatchCommand(profileId: string, options: { hold?: boolean } = {}): string {
  const dir = slurmStateDir(profileId);
  return `mkdir -p ${dir}/out && cd ${dir} && sbatch --parsable${options.hold ? ' --hold' : ''} job.sh`;
}

/** Picks the port on the node: python3 binds it (what the server will do), else bash asks whether anything listens. */
function portSection(base: number): string[] {
  if (!Number.isInteger(base) || base < 1024 || base + SLURM_PORT_SPAN > 65535) throw new AppError('INTERNAL', `port base ${base} is out of range`);
  const last = base + SLURM_PORT_SPAN;
  return [
    `# --- A free port on this node, from ${base} up (shared nodes: ${base} may be taken) ---`,
    'port_free() {',
    '  if command -v python3 >/dev/null 2>&1; then',
    `    python3 -c 'import socket,sys; s=socket.socket(); s.bind(("", int(sys.argv[1])))' "$1" 2>/dev/null`,
    '  else',
    '    ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null',
    '  fi',
    '}',
    '# Two jobs of the app that start together on one node would both find the same port free: each claims its',
    '# port with a lock (flock on fd 9, held by this job\'s processes and released when they end, even if killed).',
    'claim_port() {',
    '  command -v flock >/dev/null 2>&1 || return 0',
    `  lock=/tmp/agentswarm-port-$1.lock`,
    '  [ -e "$lock" ] || (umask 0 && : >>"$lock") 2>/dev/null',
    '  [ -r "$lock" ] || return 1',
    '  exec 9<"$lock"',
    '  flock -n 9 || { exec 9<&-; return 1; }',
    '}',
    `PORT=${base}`,
    'until claim_port "$PORT" && port_free "$PORT"; do',
    '  exec 9<&-',
    '  PORT=$((PORT + 1))',
    `  if [ "$PORT" -gt ${last} ]; then say "no free port from ${base} to ${last} on $(hostname)"; exit 1; fi`,
    'done',
    '',
    '# The app reads this file through the login node (written whole: tmp file, then mv).',
    'printf \'job=%s\\nnode=%s\\nhost=%s\\nport=%s\\nstarted=%s\\n\' "$SLURM_JOB_ID" "${SLURMD_NODENAME:-}" "$(hostname)" "$PORT" "$(date +%s)" >"$ENDPOINT.tmp.$$"',
    'mv -f "$ENDPOINT.tmp.$$" "$ENDPOINT"',
  ];
}

function nativeSection(activate: string | null): string[] {
  return [
    '# --- The server, natively: the profile\'s activate line, then ajet-swarm ---',
    activate ? `eval ${shellQuote(activate)} || { say "the activate line failed (exit $?)"; exit 1; }` : '# (no activate line: ajet-swarm is expected on PATH)',
    'command -v ajet-swarm >/dev/null 2>&1 || { say "ajet-swarm is not on PATH on $(hostname) after the activate line"; exit 127; }',
    'say "starting ajet-swarm on $(hostname) port $PORT"',
    'ajet-swarm start --swarm-port "$PORT" &',
    'SERVER=$!',
    // Slurm sends TERM to every process of the job anyway; the trap makes the script wait for the server's own exit.
    'trap \'say "stop requested (SIGTERM)"; kill -TERM "$SERVER" 2>/dev/null\' TERM',
    'wait_for "$SERVER"',
    'rc=$?',
    'say "ajet-swarm exited with code $rc"',
    'exit "$rc"',
  ];
}

/** The user's own lines (Apptainer, enroot, …), run like the native server: in the background, waited for, told of TERM. */
function customSection(script: string): string[] {
  return [
    '# --- The server, by your own lines (an edited template: Apptainer, enroot/pyxis, …). The app does not test this variant. ---',
    '# $PORT is the port chosen above; the server must listen on it. Slurm ends every process of the job at scancel.',
    'say "starting the custom server lines on $(hostname) port $PORT"',
    '(',
    ...script.replace(/\r\n?/g, '\n').split('\n').map((line) => `  ${line}`),
    ') &',
    'SERVER=$!',
    'trap \'say "stop requested (SIGTERM)"; kill -TERM "$SERVER" 2>/dev/null\' TERM',
    'wait_for "$SERVER"',
    'rc=$?',
    'say "the custom server lines exited with code $rc"',
    'exit "$rc"',
  ];
}

/**
 * Podman inside the job, the clean stop pattern of the facts: `exec podman run --rm` would leave the
 * container serving after scancel (conmon escapes the job: its container is no process of the job, so
 * Slurm's signals never reach it). Detached run, a TERM trap that stops and removes it, `podman wait` in
 * the background so the USR1 warning trap runs at once.
 *
 * The TERM trap is set BEFORE `podman run`: scancel signals every process of the job, `podman run -d`
 * too, and a run killed half-way left the container behind, created or even running and serving
 * (measured on the test bed, scancel 0.2-0.4 s after the run began). Bash runs the trap once the
 * foreground `podman run` has returned, so the trap's stop/rm by name finds whatever it left.
 *
 * Rootless Podman in a batch job: no logind session, so XDG_RUNTIME_DIR is unset and /run/user/<uid>
 * may not exist on the node. Podman uses /run/user/<uid> when it is the user's (the test bed's case).
 * Without it, Podman 4.3 takes the run root and tmp dir its database recorded (measured: "Overriding run
 * root ... from database"), so a user who first ran Podman in a login session gets `creating events dirs:
 * mkdir /run/user/<uid>: permission denied`, whatever XDG_RUNTIME_DIR the script would set (explicit
 * --runroot/--tmpdir: "database configuration mismatch"; runroot in storage.conf: overridden too). That needs
 * the site (a runtime folder for jobs): the script says so in the output, next to Podman's own error.
 */
function podmanSection(image: string, identity: SlurmJobIdentity): string[] {
  const { envNames } = identity;
  // Names only (`--env NAME` copies the value from the script's environment): values never reach argv.
  const envFlags = [...new Set(['NO_COLOR', 'LOGURU_COLORIZE', ...envNames.map(assertEnvName)])].map((n) => `--env ${n}`).join(' ');
  // The app's labels: the user (and the test bed's cleanup) can tell the app's containers and their profile in `podman ps`.
  const labels = [`${LABEL_MANAGED}=true`, `${LABEL_APP_VERSION}=${identity.appVersion}`, `${LABEL_PROFILE}=${identity.profileId}`].map((l) => `--label ${shellQuote(l)}`).join(' ');
  return [
    '# --- The server in Podman (untested with real GPUs: CDI devices for the GPUs Slurm gave this job) ---',
    'command -v podman >/dev/null 2>&1 || { say "podman is not on PATH on $(hostname)"; exit 127; }',
    `IMAGE=${shellQuote(image)}`,
    'CONTAINER="$NAME-$SLURM_JOB_ID"',
    'if [ -z "${XDG_RUNTIME_DIR:-}" ]; then',
    '  if [ -d "/run/user/$(id -u)" ] && [ -w "/run/user/$(id -u)" ]; then say "XDG_RUNTIME_DIR is unset (no login session in a batch job): Podman uses /run/user/$(id -u)"',
    '  else say "XDG_RUNTIME_DIR is unset and /run/user/$(id -u) is missing on $(hostname) (no login session in a batch job): Podman fails if its database names that folder (creating events dirs: mkdir ... permission denied); ask the cluster\'s admins for /run/user/$(id -u) in jobs (some sites make it in a Slurm prolog)"; fi',
    'fi',
    'GPU_FLAGS=()',
    'for g in $(printf \'%s\' "${SLURM_JOB_GPUS:-${CUDA_VISIBLE_DEVICES:-}}" | tr \',\' \' \'); do GPU_FLAGS+=(--device "nvidia.com/gpu=$g"); done',
    '# Slurm SIGKILLs this script KillWait s after its TERM: the stop (and rm) must be over by then.',
    'KILL_WAIT=$(scontrol show config 2>/dev/null | sed -n \'s/^KillWait *= *\\([0-9][0-9]*\\).*/\\1/p\')',
    `STOP_SECONDS=${PODMAN_STOP_SECONDS}`,
    'if [ -n "$KILL_WAIT" ] && [ "$KILL_WAIT" -lt $((STOP_SECONDS + 3)) ]; then STOP_SECONDS=$((KILL_WAIT > 4 ? KILL_WAIT - 3 : 1)); fi',
    'stop_container() { podman stop -t "$STOP_SECONDS" "$CONTAINER" >/dev/null 2>&1; podman rm -f "$CONTAINER" >/dev/null 2>&1; }',
    '# Before `podman run`: a cancel while the container starts must not leave it behind (see above).',
    'trap \'say "stop requested (SIGTERM)"; stop_container; exit 143\' TERM',
    'podman rm -f "$CONTAINER" >/dev/null 2>&1',
    'say "starting $IMAGE as $CONTAINER on $(hostname) port $PORT"',
    `podman run -d --name "$CONTAINER" --init --network host ${labels} --label io.agentswarm.slurm-job="$SLURM_JOB_ID" ${envFlags} "\${GPU_FLAGS[@]}" "$IMAGE" ajet-swarm start --swarm-port "$PORT" >/dev/null || { rc=$?; say "podman run failed (exit $rc)"; stop_container; exit "$rc"; }`,
    'podman logs -f "$CONTAINER" &',
    'podman wait "$CONTAINER" >/dev/null &',
    'wait_for $!',
    'rc=$(podman inspect --format \'{{.State.ExitCode}}\' "$CONTAINER" 2>/dev/null)',
    'podman rm -f "$CONTAINER" >/dev/null 2>&1',
    'say "the container exited with code ${rc:-unknown}"',
    'exit "${rc:-1}"',
  ];
}

/**
 * The whole job script for one profile's swarm server. `portBase`: where the port search starts
 * (AgentJet's default 10086; the unit tests move it away from ports other tests on the machine use).
 */
export function slurmJobScript(identity: SlurmJobIdentity, options: SlurmJobOptions, { portBase = SLURM_PORT_BASE }: { portBase?: number } = {}): string {
  const name = slurmJobName(assertProfileId(identity.profileId));
  const limit = options.timeLimit ? slurmTimeLimitSeconds(options.timeLimit) : null;
  const workDir = options.workDir ? (options.workDir.startsWith('~/') ? `"$HOME"/${shellQuote(options.workDir.slice(2))}` : shellQuote(options.workDir)) : '"$HOME"';
  return [
    // A login shell: sites define `module` (and conda's hooks) in the login profile.
    '#!/bin/bash -l',
    `# AgentSwarm Desktop ${identity.appVersion}: the swarm server of profile "${identity.profileId}" as a Slurm batch job.`,
    '# Generated from the app\'s template; you may edit it. Submitted from its own folder with:',
    `#   ${sbatchCommand(identity.profileId)}`,
    ...sbatchOptions(identity, options).map((o) => `#SBATCH ${o}`),
    '',
    `NAME=${shellQuote(name)}`,
    'STATE_DIR="$HOME/.agentswarm/slurm/$NAME"',
    'ENDPOINT="$STATE_DIR/endpoint"',
    `WARN_SECONDS=${options.warnBeforeLimitSeconds}`,
    `say() { printf '%s ${JOB_LINE_MARK} %s\\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$*"; }`,
    '# `wait` returns early when a trapped signal (USR1) arrives: wait again until the process really ended.',
    'wait_for() { while :; do wait "$1"; local rc=$?; kill -0 "$1" 2>/dev/null || return "$rc"; done; }',
    'mkdir -p "$STATE_DIR" && rm -f "$ENDPOINT" "$STATE_DIR/warning"',
    'trap \'rm -f "$ENDPOINT"\' EXIT',
    '',
    `# --- Warning before the time limit${limit === null ? ' (the partition\'s limit)' : ''}: Slurm sends USR1 to this script (--signal=B:USR1@${options.warnBeforeLimitSeconds}) ---`,
    'on_time_warning() {',
    '  say "time limit in $WARN_SECONDS s: Slurm will stop the server then (training in progress is lost after its last checkpoint)"',
    '  printf \'%s %s\\n\' "$(date +%s)" "$WARN_SECONDS" >"$STATE_DIR/warning"',
    '}',
    'trap on_time_warning USR1',
    '',
    '# --- Environment: plain log output; the profile\'s variables from the 0600 file the app wrote (then deleted) ---',
    PLAIN_LOG_ENV,
    'if [ -f "$STATE_DIR/env" ]; then . "$STATE_DIR/env"; rm -f "$STATE_DIR/env"; fi',
    `cd ${workDir} || { say "cannot enter the working folder"; exit 1; }`,
    '',
    ...portSection(portBase),
    '',
    ...(options.run.mode === 'native'
      ? nativeSection(options.run.activate)
      : options.run.mode === 'custom'
        ? customSection(options.run.script)
        : podmanSection(options.run.image, identity)),
    '',
  ].join('\n');
}
