import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const here = dirname(fileURLToPath(import.meta.url));

/** TEST DOUBLE: the `ajet` stub package (stdlib only) that stands in for AgentJet's client, which cannot be installed here. */
export const AJET_STUB_DIR = resolve(here, '..', 'fixtures', 'ajet-stub');
/** A small agent project (an agent that calls an OpenAI-compatible LLM) the wizard tests scaffold around. */
export const SAMPLE_AGENT_DIR = resolve(here, '..', 'fixtures', 'sample-agent');

/** Debian's python3 (the test bed installs it) when present, else the first python3 on PATH. */
export function systemPython(): string {
  return existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
}

/**
 * Creates `<projectDir>/.venv` as a user would (`python3 -m venv`; without pip: nothing can be
 * downloaded here) and, with `ajet: true`, makes the `ajet` stub importable in it through a `.pth`
 * file in its site-packages (what `pip install -e` does too). Returns the venv's python.
 */
export async function makeVenv(projectDir: string, options: { ajet: boolean }): Promise<string> {
  const venv = join(projectDir, '.venv');
  await run(systemPython(), ['-m', 'venv', '--without-pip', venv]);
  if (options.ajet) {
    const lib = join(venv, 'lib');
    const [pythonDir] = (await readdir(lib)).filter((name) => name.startsWith('python3'));
    if (!pythonDir) throw new Error(`no python3.* folder in ${lib}`);
    await writeFile(join(lib, pythonDir, 'site-packages', 'ajet_stub.pth'), `${AJET_STUB_DIR}\n`);
  }
  return join(venv, 'bin', 'python');
}
