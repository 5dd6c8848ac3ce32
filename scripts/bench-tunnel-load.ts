/** The HTTP load of `npm run bench -- tunnel`: one function per measurement, all against a base URL. */
import http from 'node:http';

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? Number.NaN;
}

export function median(values: number[]): number {
  return percentile(values, 50);
}

function request(url: string, agent: http.Agent | false): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent }, (res) => {
      let bytes = 0;
      res.on('data', (chunk: Buffer) => (bytes += chunk.length));
      res.on('end', () => resolve(bytes));
    });
    req.on('error', reject);
  });
}

async function timed(url: string, agent: http.Agent | false): Promise<number> {
  const started = performance.now();
  await request(url, agent);
  return performance.now() - started;
}

/** MB/s (10^6 bytes) of one download of `mib` MiB on a fresh connection. */
export async function download(base: string, mib: number): Promise<number> {
  const started = performance.now();
  const bytes = await request(`${base}/big?mb=${mib}`, false);
  if (bytes !== mib * 1024 * 1024) throw new Error(`download through ${base} got ${bytes} bytes`);
  return bytes / 1e6 / ((performance.now() - started) / 1000);
}

/** Latencies (ms) of `count` requests one after another on one keep-alive connection. */
export async function sequential(base: string, count: number): Promise<number[]> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    await timed(`${base}/small`, agent);
    const latencies: number[] = [];
    for (let i = 0; i < count; i += 1) latencies.push(await timed(`${base}/small`, agent));
    return latencies;
  } finally {
    agent.destroy();
  }
}

/**
 * `connections` keep-alive connections, each sending `perConnection` requests one after another,
 * all at once: latencies (ms) and requests per second over the whole run. The connections are
 * opened before the clock starts, so this measures forwarding, not channel opening.
 */
export async function concurrent(base: string, connections: number, perConnection: number): Promise<{ latencies: number[]; rps: number }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections, maxFreeSockets: connections });
  try {
    await Promise.all(Array.from({ length: connections }, () => timed(`${base}/small`, agent)));
    const latencies: number[] = [];
    const started = performance.now();
    await Promise.all(
      Array.from({ length: connections }, async () => {
        for (let i = 0; i < perConnection; i += 1) latencies.push(await timed(`${base}/small`, agent));
      }),
    );
    return { latencies, rps: latencies.length / ((performance.now() - started) / 1000) };
  } finally {
    agent.destroy();
  }
}

/** Latencies (ms) of `count` requests, each on a new TCP connection (and so a new SSH channel). */
export async function freshConnections(base: string, count: number): Promise<number[]> {
  const latencies: number[] = [];
  for (let i = 0; i < count; i += 1) latencies.push(await timed(`${base}/small`, false));
  return latencies;
}

/** p50 (ms) of `count` calls of `call` after 5 untimed ones. */
export async function callP50(call: () => Promise<unknown>, count: number): Promise<number> {
  for (let i = 0; i < 5; i += 1) await call();
  const latencies: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const started = performance.now();
    await call();
    latencies.push(performance.now() - started);
  }
  return median(latencies);
}
