import { chmod, copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The labelled TEST DOUBLE of nvidia-smi (test/stubs/nvidia-smi/nvidia-smi). */
const DOUBLE = resolve(dirname(fileURLToPath(import.meta.url)), '../stubs/nvidia-smi/nvidia-smi');

export interface FakeGpu {
  utilizationPct: number;
  memoryUsedMiB?: number;
  memoryTotalMiB?: number;
}

export interface FakeNvidiaSmi {
  /** The double's path: the app's `gpus.command`. The test bed's sshd runs on this machine, so the SSH user reaches the same file. */
  command: string;
  /** Scripts what every later call reports: one entry per GPU. */
  setGpus(gpus: FakeGpu[]): Promise<void>;
  /** Every call so far: when (epoch seconds) and as whom (`root` here, the SSH user over SSH). */
  calls(): Promise<{ at: number; user: string }[]>;
  remove(): Promise<void>;
}

/**
 * Installs the double in a folder of its own that both this process and the test bed's SSH user can run and
 * log into (the SSH user is another account on this machine): each test file gets its own calls and GPUs.
 */
export async function installFakeNvidiaSmi(gpus: FakeGpu[]): Promise<FakeNvidiaSmi> {
  const dir = await mkdtemp(join(tmpdir(), 'agentswarm-fake-nvidia-smi-'));
  await chmod(dir, 0o755);
  const command = join(dir, 'nvidia-smi');
  await copyFile(DOUBLE, command);
  await chmod(command, 0o755);
  const log = join(dir, 'calls.log');
  await writeFile(log, '');
  await chmod(log, 0o666);
  const csv = join(dir, 'gpus.csv');
  const fake: FakeNvidiaSmi = {
    command,
    async setGpus(list) {
      const lines = list.map((g, i) => `${i}, GPU-fake-${i}, ${g.utilizationPct}, ${g.memoryUsedMiB ?? 1024}, ${g.memoryTotalMiB ?? 81920}\n`);
      await writeFile(csv, lines.join(''));
      await chmod(csv, 0o644);
    },
    async calls() {
      const text = await readFile(log, 'utf8');
      return text
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => {
          const [at, user] = l.split(' ');
          return { at: Number(at), user: user ?? '' };
        });
    },
    remove: () => rm(dir, { recursive: true, force: true }),
  };
  await fake.setGpus(gpus);
  return fake;
}
