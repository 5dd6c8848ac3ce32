import type { EngineRegistry } from '../engines/engine-registry';

/**
 * "Exited with code 1. Last output: RuntimeError: …" for a server that ended on its own, so the
 * user sees why at a glance instead of only "stopped". Null when the container is gone entirely.
 */
export async function describeExit(engines: EngineRegistry, engineId: string, containerId: string): Promise<string | null> {
  const engine = engines.get(engineId);
  const info = await engine.inspectContainer(containerId).catch(() => null);
  if (!info) return null;
  const tail = await engine.logTail(containerId, 3).catch(() => [] as string[]);
  const code = info.exitCode === null ? '' : ` with code ${info.exitCode}`;
  const output = tail.map((line) => (line.length > 300 ? `${line.slice(0, 300)}…` : line)).join(' | ');
  return `The swarm server exited${code}.${output ? ` Last output: ${output}` : ''}`;
}
