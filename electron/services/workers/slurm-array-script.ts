import { AppError } from '../../shared/errors';
import type { WorkerPlacementData } from '../../shared/schemas-workers';
import { shellQuote } from '../engines/container-engine';

/**
 * The job script of a pool's Slurm workers: ONE job array (`sbatch --array=0-(N-1)`), task i being
 * worker i of the array, with the same rules as the swarm server's Slurm job (engines/slurm/job-script.ts):
 * readable text shown before submission, a login shell, `--no-requeue`, and secrets never in the script
 * nor in argv: the env (AJET_SWARM_URL, the LLM key) reaches each task through a 0600 file of its own
 * (`env.<task>`, written from stdin at submission, read and deleted by that task). Each task's share of
 * the batch is plain numbers in the script. Pure functions: unit-tested.
 *
 *   ~/.agentswarm/workers/<pool>-slurm-<n>/job.sh        this script (sbatch runs it from this folder)
 *                                          env.<task>    0600, read and deleted when the task starts
 *                                          out/<array>_<task>.out   the task's output (the worker's log)
 *                                          exit.<task>   the worker's exit code, written when it ends
 */
export type SlurmPlacement = Extract<WorkerPlacementData, { kind: 'slurm' }>;

export interface ArrayTask {
  /** Each task's env of plain share numbers (AGENTSWARM_WORKER_*). */
  shareEnv: Record<string, string>;
}

/** Python resets SIGINT to its default (batch scripts may start it ignored); then runs the script. */
const SIGINT_SHIM = 'import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execv(sys.executable, [sys.executable] + sys.argv[1:])';

export function slurmArrayName(poolId: string): string {
  return `agentswarm-workers-${poolId}`;
}

/**
 * The run folder's name of an array whose first task is worker `firstIndex`: `<pool>-slurm-<first>` for the pool's
 * first start, `<pool>-slurm-<first>-<tag>` for arrays added or restarted later (a folder of its own: the exit files
 * of an earlier array's tasks must never be read as the new ones').
 */
export function slurmRunName(poolId: string, firstIndex: number, tag: string | null): string {
  return tag ? `${poolId}-slurm-${firstIndex}-${tag}` : `${poolId}-slurm-${firstIndex}`;
}

/** The run folder as a user types it, and as a shell word for scripts (`$HOME` expands on the host). */
export function slurmRunDir(runName: string): { shown: string; word: string } {
  if (!/^[a-z0-9][a-z0-9-]{0,100}$/.test(runName)) throw new AppError('VALIDATION_FAILED', `"${runName}" cannot name a worker run folder.`);
  return { shown: `~/.agentswarm/workers/${runName}`, word: `"$HOME"/.agentswarm/workers/${runName}` };
}

function assertEnvName(name: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,127}$/.test(name)) throw new AppError('VALIDATION_FAILED', `"${name}" is not a valid environment variable name.`);
  return name;
}

export function slurmArrayScript(options: { poolId: string; runName: string; placement: SlurmPlacement; workDir: string; script: string; tasks: ArrayTask[] }): string {
  const { placement, tasks } = options;
  if (tasks.length < 1) throw new AppError('VALIDATION_FAILED', 'A Slurm job array needs at least one task.');
  const dir = slurmRunDir(options.runName);
  const sbatch = [
    `--job-name=${slurmArrayName(options.poolId)}`,
    `--comment="agentswarm workers pool=${options.poolId}"`,
    `--array=0-${tasks.length - 1}`,
    '--output=out/%A_%a.out',
    '--nodes=1',
    '--ntasks=1',
    ...(placement.partition ? [`--partition=${placement.partition}`] : []),
    ...(placement.timeLimit ? [`--time=${placement.timeLimit}`] : []),
    ...(placement.cpusPerTask ? [`--cpus-per-task=${placement.cpusPerTask}`] : []),
    // A requeued task would start again without its env file (deleted at the first start): fail instead.
    '--no-requeue',
  ];
  const shares = tasks.map((task, i) => `  ${i}) ${Object.entries(task.shareEnv).map(([k, v]) => `export ${assertEnvName(k)}=${shellQuote(v)}`).join('; ')} ;;`);
  return [
    // A login shell: sites define `module` (and conda's hooks) in the login profile.
    '#!/bin/bash -l',
    `# AgentSwarm Desktop: ${tasks.length} rollout worker(s) of pool ${options.poolId} as one Slurm job array (task i = worker i).`,
    '# Generated from the app\'s template. Submitted from its own folder with:',
    `#   ${slurmArraySubmitCommand(options.runName)}`,
    ...sbatch.map((o) => `#SBATCH ${o}`),
    '',
    `DIR=${dir.word}`,
    'T="$SLURM_ARRAY_TASK_ID"',
    '# --- This task\'s share of the batch (plain numbers; the app computed the split) ---',
    'case "$T" in',
    ...shares,
    '  *) echo "[agentswarm] task $T is not one of this array\'s" >&2; exit 2 ;;',
    'esac',
    '# --- Environment: the swarm URL and the agent\'s keys from this task\'s 0600 file (then deleted) ---',
    'export PYTHONUNBUFFERED=1 PYTHONIOENCODING=utf-8 NO_COLOR=1',
    'if [ -f "$DIR/env.$T" ]; then . "$DIR/env.$T"; rm -f "$DIR/env.$T"; fi',
    `cd ${shellQuote(options.workDir)} || { echo "[agentswarm] cannot enter the project folder" >&2; exit 1; }`,
    '# --- The worker: a stop (scancel --signal=INT) reaches it, so it gives its episodes back ---',
    `${placement.python} -c ${shellQuote(SIGINT_SHIM)} ${shellQuote(options.script)} &`,
    'child=$!',
    "trap 'kill -INT \"$child\" 2>/dev/null' INT",
    "trap 'kill -TERM \"$child\" 2>/dev/null' TERM",
    '# `wait` returns early when a trapped signal arrives: wait again until the worker really ended.',
    'while :; do wait "$child"; rc=$?; kill -0 "$child" 2>/dev/null || break; done',
    'echo "$rc" >"$DIR/exit.$T.tmp" && mv "$DIR/exit.$T.tmp" "$DIR/exit.$T"',
    'exit "$rc"',
    '',
  ].join('\n');
}

/** The exact command run on the login node (shown with the script). */
export function slurmArraySubmitCommand(runName: string): string {
  const { shown } = slurmRunDir(runName);
  return `mkdir -p ${shown}/out && cd ${shown} && sbatch --parsable job.sh`;
}

/**
 * Writes job.sh and one 0600 env file per task (the env arrives on stdin, never in the script), then
 * submits; prints the array's job id. A refused submission leaves no env file behind.
 */
export function slurmArraySubmitScript(runName: string, script: string, tasks: number): string {
  const { word } = slurmRunDir(runName);
  const end = 'AGENTSWARM_ARRAY_EOF';
  if (script.includes(end)) throw new AppError('VALIDATION_FAILED', 'The job script contains the end marker of its here-document.');
  return [
    '[ -n "$HOME" ] || { echo "HOME is not set" >&2; exit 1; }',
    `d=${word}`,
    'mkdir -p "$d/out" && chmod 700 "$d" || exit 1',
    `cat >"$d/job.sh" <<'${end}'\n${script.endsWith('\n') ? script.slice(0, -1) : script}\n${end}`,
    '(umask 077 && cat >"$d/env.shared") || exit 1',
    `i=0; while [ $i -lt ${tasks} ]; do (umask 077 && cp "$d/env.shared" "$d/env.$i") || exit 1; i=$((i + 1)); done`,
    'rm -f "$d/env.shared"',
    'cd "$d" || exit 1',
    'sbatch --parsable job.sh; rc=$?',
    'if [ "$rc" -ne 0 ]; then rm -f "$d"/env.*; fi',
    'exit "$rc"',
  ].join('\n');
}

/**
 * One task's files, read on the login node: `@@exit <code>` (its exit file) or `@@noexit`, `@@size <bytes>`, then its
 * log from `offset`. No Slurm command: the task's queue state comes from the login node's shared queue poll (a file
 * read costs the controller nothing; an squeue per task per second did).
 */
export function slurmPollScript(runName: string, arrayId: string, task: number, offset: number, maxBytes: number): string {
  const { word } = slurmRunDir(runName);
  if (!/^\d+$/.test(arrayId)) throw new AppError('VALIDATION_FAILED', `"${arrayId}" is not a Slurm job id.`);
  return [
    `d=${word}`,
    `t=${task}`,
    `f="$d/out/${arrayId}_${task}.out"`,
    'if [ -f "$d/exit.$t" ]; then echo "@@exit $(cat "$d/exit.$t")"; else echo "@@noexit"; fi',
    's=$(wc -c <"$f" 2>/dev/null | tr -d " "); s=${s:-0}',
    'echo "@@size $s"',
    `o=${Math.max(0, Math.floor(offset))}`,
    `[ "$s" -gt "$o" ] && tail -c +$((o + 1)) "$f" | head -c $(( s - o < ${maxBytes} ? s - o : ${maxBytes} ))`,
    'exit 0',
  ].join('\n');
}

/**
 * SIGINT to the task (the worker gives its episodes back), then scancel; waits until Slurm no longer runs it. The
 * controller is asked sparingly: while the worker ends, its exit file is what is watched (squeue once a second, for a
 * task still pending, which writes none); after scancel, looks 0.2, 0.4, 0.8 … s apart (at most 5 s; KillWait bounds it).
 */
export function slurmStopScript(runName: string, jobId: string): string {
  const { word } = slurmRunDir(runName);
  if (!/^\d+_\d+$/.test(jobId)) throw new AppError('VALIDATION_FAILED', `"${jobId}" is not a Slurm array task id.`);
  const task = jobId.split('_')[1];
  return [
    `d=${word}`,
    `running() { [ -n "$(squeue -h -j ${jobId} -o %T 2>/dev/null)" ]; }`,
    `scancel --batch --signal=INT ${jobId} 2>/dev/null`,
    `i=0; while [ $i -lt 50 ] && [ ! -f "$d/exit.${task}" ]; do if [ $((i % 10)) -eq 9 ] && ! running; then break; fi; sleep 0.1; i=$((i + 1)); done`,
    `running && scancel ${jobId} 2>/dev/null`,
    // Tenths of a second: w the next wait, t the time waited (at most 60 s).
    'w=2; t=0; while [ $t -lt 600 ] && running; do sleep $((w / 10)).$((w % 10)); t=$((t + w)); w=$((w * 2 > 50 ? 50 : w * 2)); done',
    `rm -f "$d/env.${task}"`,
    'running && { echo "still running" >&2; exit 1; }',
    'exit 0',
  ].join('\n');
}
