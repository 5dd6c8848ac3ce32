/**
 * The two servers of `npm run bench -- dryrun`, each in a process of its own as in real use (the agent, the app's
 * backend and the LLM are different processes; in one process they would share one event loop and the relay's
 * hop would be measured as extra queueing of everything else). Roles:
 *   llm    — the TEST DOUBLE LLM (test/fixtures/fake-llm) on 127.0.0.1;
 *   dryrun — the dry-run swarm server with the LLM relay, spend guard and trace store; env BENCH_LLM_URL.
 * The key comes in env BENCH_LLM_KEY (never argv). Prints `READY <port>`; SIGTERM stops it.
 */
import { startDryRunServer } from '../electron/services/dry-run/dry-run-server';
import { DebugLlmRelay } from '../electron/services/dry-run/llm-relay';
import { SpendGuard } from '../electron/services/dry-run/spend-guard';
import { TraceStore } from '../electron/services/dry-run/trace-store';
import { startFakeLlm } from '../test/fixtures/fake-llm/fake-llm';

async function main(): Promise<void> {
  const role = process.argv[2];
  const key = process.env.BENCH_LLM_KEY;
  if (!key) throw new Error('BENCH_LLM_KEY is not set');
  let close: () => Promise<void>;
  if (role === 'llm') {
    const llm = await startFakeLlm({ model: 'bench-model', requireKey: key, reply: '391' });
    process.stdout.write(`READY ${llm.port}\n`);
    close = () => llm.close();
  } else if (role === 'dryrun') {
    const spend = new SpendGuard({ maxCallsPerEpisode: 10_000, maxCalls: 1_000_000, maxTokens: 1_000_000_000 });
    const trace = new TraceStore();
    const relay = new DebugLlmRelay({ baseUrl: String(process.env.BENCH_LLM_URL), model: 'bench-model', apiKey: key, spend, calls: trace });
    const server = await startDryRunServer({ port: 0, trainer: 'auto', bootDelayMs: 0, relay, trace, janitorIntervalMs: 600_000 });
    process.stdout.write(`READY ${new URL(server.url).port}\n`);
    close = async () => {
      const stats = trace.stats();
      process.stderr.write(`dry run: ${stats.calls} calls traced (${(stats.bytes / 1024 / 1024).toFixed(1)} MB), ${spend.snapshot().calls} admitted by the spend guard\n`);
      relay.close();
      await server.close();
    };
  } else throw new Error('usage: bench-dryrun-child.ts llm|dryrun');
  process.once('SIGTERM', () => void close().then(() => process.exit(0)));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
