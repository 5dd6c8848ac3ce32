import type { EngineProduct } from '../../shared/schemas';
import type { ContainerSpec } from '../engines/container-engine';
import { cdiDevicesOf } from '../engines/podman-libpod';

/** What a masked secret shows instead of its value, in the command and anywhere else the user sees it. */
export const SECRET_MASK = '****';

/** Characters a POSIX shell takes literally in an unquoted word (no globbing, no expansion). */
const SAFE_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** Quotes only when needed, so the usual command stays readable: `-v /data/m:/models:ro`, `'a b'`. */
export function quoteWord(value: string): string {
  if (value !== '' && SAFE_WORD.test(value)) return value;
  return `'${value.replace(/'/g, `'"'"'`)}'`;
}

/**
 * A host path as typed: `~/x` stays unquoted at the start (the shell on the server expands it to
 * that user's home, which is what the app does before Start), the rest is quoted as usual.
 */
function quoteHostPath(word: string): string {
  if (word.startsWith('~/')) return `~/${quoteWord(word.slice(2))}`;
  return quoteWord(word);
}

function gib(bytes: number): string {
  return bytes % 1024 ** 3 === 0 ? `${bytes / 1024 ** 3}g` : String(bytes);
}

/** `-e NAME=value`, or `-e NAME=****` for a secret. */
function envWords(spec: ContainerSpec, secretNames: ReadonlySet<string>): string[] {
  return Object.entries(spec.env).flatMap(([name, value]) => ['-e', secretNames.has(name) ? `${name}=${SECRET_MASK}` : quoteWord(`${name}=${value}`)]);
}

/**
 * The `docker run` (or `podman run`) that creates the same container as Start: detached, with the app's labels (so
 * the app finds a container started by hand too), loopback-only publishing, GPUs, shared memory,
 * binds, env and command. Secret values are masked; one line per option group for reading.
 */
export function dockerRunCommand(spec: ContainerSpec, secretNames: readonly string[], product: EngineProduct = 'docker'): string {
  const secrets = new Set(secretNames);
  const lines: string[] = [[product, 'run', '-d', '--name', quoteWord(spec.name), ...(spec.init ? ['--init'] : [])].join(' ')];
  for (const [key, value] of Object.entries(spec.labels)) lines.push(`--label ${quoteWord(`${key}=${value}`)}`);
  if (spec.network.mode === 'host') lines.push('--network host');
  else for (const p of spec.network.ports) lines.push(`-p ${quoteWord(`${p.hostIp}:${p.hostPort}:${p.containerPort}`)}`);
  // Podman takes GPUs only as CDI devices (its `--gpus` is silently ignored by 4.3).
  if (product === 'podman') for (const device of cdiDevicesOf(spec.gpus)) lines.push(`--device ${quoteWord(device.path)}`);
  else if (spec.gpus.mode === 'all') lines.push('--gpus all');
  // Docker's CLI needs the inner double quotes when the list has a comma (a CSV field).
  else if (spec.gpus.mode === 'ids') lines.push(`--gpus ${quoteWord(`"device=${spec.gpus.ids.join(',')}"`)}`);
  lines.push(spec.shm.mode === 'size' ? `--shm-size=${gib(spec.shm.bytes)}` : '--ipc=host');
  for (const b of spec.binds) lines.push(`-v ${quoteHostPath(`${b.hostPath}:${b.containerPath}${b.readOnly ? ':ro' : ''}`)}`);
  const env = envWords(spec, secrets);
  for (let i = 0; i < env.length; i += 2) lines.push(`${env[i]} ${env[i + 1]}`);
  lines.push([quoteWord(spec.image), ...spec.cmd.map(quoteWord)].join(' '));
  return lines.join(' \\\n  ');
}

/**
 * Where native mode keeps a server's files on the engine host (the native engine's layout,
 * services/native/native-scripts.ts): `server.log` and `pid` in `~/.agentswarm/run/<name>`.
 */
export function nativeRunDir(name: string): string {
  return `~/.agentswarm/run/${name}`;
}

/**
 * The shell line that starts a native server the way the app does: its own session (`setsid`, so
 * closing the SSH login does not hang it up), detached (`nohup`, stdin from /dev/null), its output
 * appended to `server.log` and its pid in `pid` in the run folder. Secret values are masked.
 */
export function nativeRunCommand(spec: ContainerSpec, secretNames: readonly string[]): string {
  const secrets = new Set(secretNames);
  const env = Object.entries(spec.env).map(([name, value]) => (secrets.has(name) ? `${name}=${SECRET_MASK}` : quoteWord(`${name}=${value}`)));
  const inner = [
    ...(spec.nativeActivate ? [spec.nativeActivate] : []),
    `exec env ${[...env, ...spec.cmd.map(quoteWord)].join(' ')}`,
  ].join(' && ');
  const dir = nativeRunDir(spec.name);
  return [
    `mkdir -p ${dir} && cd ~ &&`,
    `nohup setsid sh -c ${quoteWord(inner)} >> ${dir}/server.log 2>&1 < /dev/null &`,
    `echo $! > ${dir}/pid`,
  ].join(' \\\n  ');
}
