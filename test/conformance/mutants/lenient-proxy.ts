// TEST DOUBLE of a *wrong* swarm server: an HTTP wrapper in front of the fake swarm server that makes it lenient in
// one chosen way, the way a careless fake would be. Used only to show that the conformance suite catches such a
// server (test/conformance/lenient-fakes-are-caught.spec.ts); never a target the suite should pass.
import http from 'node:http';
import { startFakeSwarmServer } from '../../fixtures/fake-swarm/server.mjs';
import type { SwarmStartOptions, SwarmUnderTest, TrainingStartOptions } from '../swarm-conformance';

export const LENIENCIES = {
  /** Answers 200 {"success":true} wherever upstream answers 4xx (400, 404, 405, 422). */
  'ok-instead-of-4xx': 'answers 200 {success:true} where upstream answers 4xx',
  /** Parses every body as JSON whatever its Content-Type says (upstream/FastAPI: 422). */
  'json-whatever-content-type': 'parses a JSON body sent as text/plain or without a Content-Type',
  /** Says a generic "Engine not ready." instead of upstream's fail_cause strings, which clients match. */
  'generic-fail-cause': 'answers a generic fail_cause on a refused claim',
  /** Keeps the keep-alive connection after a 500, where uvicorn drops it. */
  'keeps-connection-after-500': 'keeps the keep-alive connection open after a 500',
  /** Passes through ROLLING_POST and WEIGHT_SYNCING in 0 ms after a batch: SwarmClient.agree_sync_weight() never sees them. */
  'syncs-in-0-ms': 'ends the training step at once, too fast for a client to see the weight sync',
  /** Starts the engine on a job YAML without Hydra's `defaults:` list, where upstream answers error "'defaults'". */
  'accepts-yaml-without-defaults': 'starts the engine on a YAML that has no defaults: list',
} as const;
export type Leniency = keyof typeof LENIENCIES;

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length']);

function collect(stream: NodeJS.ReadableStream): Promise<Buffer> {
  return new Promise((ok, fail) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => ok(Buffer.concat(chunks)));
    stream.on('error', fail);
  });
}

function mutateAnswer(leniency: Leniency, path: string, status: number, body: Buffer): { status: number; body: Buffer } {
  if (leniency === 'ok-instead-of-4xx' && status >= 400 && status < 500) return { status: 200, body: Buffer.from('{"success":true}') };
  if (leniency === 'generic-fail-cause' && path === '/claim_episode' && status === 200) {
    const json = JSON.parse(body.toString('utf8')) as { success?: boolean; fail_cause?: string };
    if (json.success === false) return { status, body: Buffer.from(JSON.stringify({ ...json, fail_cause: 'Engine not ready.' })) };
  }
  return { status, body };
}

/** What a lenient fake amounts to: it acts as if a job YAML (one with an ajet block) had a defaults: list. */
function withDefaults(body: Buffer): Buffer {
  try {
    const json = JSON.parse(body.toString('utf8')) as { yaml_as_string?: unknown };
    const yaml = json.yaml_as_string;
    if (typeof yaml !== 'string' || !/^ajet:/m.test(yaml) || /^defaults:/m.test(yaml)) return body;
    return Buffer.from(JSON.stringify({ ...json, yaml_as_string: `${yaml}defaults:\n- verl_default\n` }));
  } catch {
    return body;
  }
}

/** The fake (trainer left to the suite) behind a wrapper with the given leniency, on a free loopback port. */
export async function startLenientFake(leniency: Leniency, options: SwarmStartOptions): Promise<SwarmUnderTest> {
  return wrap(leniency, await startFakeSwarmServer({ port: 0, quiet: true, trainer: 'external', ...options }));
}

/** The fake playing the trainer itself, behind the same wrapper; 'syncs-in-0-ms' ignores the asked training step. */
export async function startLenientTrainingFake(leniency: Leniency, options: TrainingStartOptions): Promise<SwarmUnderTest> {
  const step = leniency === 'syncs-in-0-ms' ? { weightSyncDelayMs: 0, rollingPostMaxMs: 0 } : options.trainingStepMs !== undefined ? { weightSyncDelayMs: options.trainingStepMs } : {};
  return wrap(leniency, await startFakeSwarmServer({ port: 0, quiet: true, trainer: 'fake', bootDelayMs: options.bootDelayMs, ...step }));
}

async function wrap(leniency: Leniency, fake: Awaited<ReturnType<typeof startFakeSwarmServer>>): Promise<SwarmUnderTest> {
  const target = new URL(fake.url);
  const proxy = http.createServer((req, res) => {
    void (async () => {
      let body = await collect(req);
      if (leniency === 'accepts-yaml-without-defaults' && req.url === '/sync_train_config') body = withDefaults(body);
      const headers = { ...req.headers };
      if (leniency === 'json-whatever-content-type' && body.length > 0) headers['content-type'] = 'application/json';
      const upstream = await new Promise<http.IncomingMessage>((ok, fail) => {
        const out = http.request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers, agent: false }, ok);
        out.on('error', fail);
        out.end(body);
      });
      const answer = mutateAnswer(leniency, new URL(req.url ?? '/', fake.url).pathname, upstream.statusCode ?? 502, await collect(upstream));
      const outHeaders = Object.fromEntries(Object.entries(upstream.headers).filter(([k]) => !HOP_BY_HOP.has(k)));
      res.writeHead(answer.status, { ...outHeaders, 'content-length': String(answer.body.length) });
      res.end(answer.body);
      // Like uvicorn, drop the connection after a 500 — unless that is the leniency under test.
      if (answer.status === 500 && leniency !== 'keeps-connection-after-500') res.on('finish', () => req.socket.destroy());
    })().catch(() => res.destroy());
  });
  await new Promise<void>((ok) => proxy.listen(0, '127.0.0.1', ok));
  const address = proxy.address();
  if (typeof address !== 'object' || !address) throw new Error('the lenient wrapper has no port');
  return {
    baseUrl: `http://127.0.0.1:${address.port}`,
    async close() {
      proxy.closeAllConnections();
      await new Promise<void>((ok) => proxy.close(() => ok()));
      await fake.close();
    },
  };
}
