import http from 'node:http';

/**
 * Reads the few swarm-server routes the app relies on. Only /health, /get_engine_status and
 * /get_current_batch_rollout_pool_information are stable across server versions (agentjet-swarm.md
 * §0), so everything here tolerates missing fields instead of failing on them.
 *
 * Without an agent, a request goes on a fresh connection with `Connection: close` (node:http,
 * `agent: false`), as upstream's overwatch does. The swarm monitor, which asks every second, passes
 * one keep-alive agent per target instead (no new TCP connection, and through an SSH tunnel no new
 * channel, per poll): a request that fails on a reused socket (the server restarted, or dropped the
 * socket after a 500: reference appendix point 13) is sent once more on a fresh connection, so a
 * pooled socket never pins us to a stale worker.
 */
export interface EngineStatusReading {
  engineStatus: string | null;
  engineStatusDetail: string | null;
  globalStep: number | null;
}

export class SwarmHttpError extends Error {
  constructor(
    message: string,
    readonly kind: 'unreachable' | 'timeout' | 'bad-response' | 'not-found',
  ) {
    super(message);
    this.name = 'SwarmHttpError';
  }
}

/** Most a route's JSON may weigh: the pool lists every finished episode of a batch, never megabytes. */
const MAX_BODY_BYTES = 8 * 1024 * 1024;

/** A keep-alive agent for one target: one socket is enough for one poll at a time. */
export function keepAliveAgent(): http.Agent {
  return new http.Agent({ keepAlive: true, maxSockets: 2, maxFreeSockets: 1 });
}

/**
 * GET `path`; resolves the parsed JSON, rejects with a SwarmHttpError. With `agent`, on a pooled
 * socket; a reused socket that fails before any answer is retried once on a fresh connection.
 */
export async function getJson(baseUrl: string, path: string, timeoutMs: number, agent?: http.Agent): Promise<unknown> {
  if (!agent) return getJsonOnce(baseUrl, path, timeoutMs, false);
  try {
    return await getJsonOnce(baseUrl, path, timeoutMs, agent);
  } catch (error) {
    if (!(error instanceof StaleSocketError)) throw error;
    return getJsonOnce(baseUrl, path, timeoutMs, false);
  }
}

/** A pooled socket the server had closed: the request never reached it, so asking again is safe. */
class StaleSocketError extends Error {}

function getJsonOnce(baseUrl: string, path: string, timeoutMs: number, agent: http.Agent | false): Promise<unknown> {
  const url = new URL(path, baseUrl);
  return new Promise((resolve, reject) => {
    let settled = false;
    const fail = (error: Error): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.destroy();
      reject(error);
    };
    const headers = agent ? { accept: 'application/json' } : { accept: 'application/json', connection: 'close' };
    let answered = false;
    const request = http.get(url, { agent, headers }, (response) => {
      answered = true;
      const status = response.statusCode ?? 0;
      if (status < 200 || status >= 300) {
        response.resume();
        fail(new SwarmHttpError(`${path} answered HTTP ${status}`, status === 404 ? 'not-found' : 'bad-response'));
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_BODY_BYTES) fail(new SwarmHttpError(`${path} answered more than ${MAX_BODY_BYTES} bytes`, 'bad-response'));
        else chunks.push(chunk);
      });
      response.on('error', () => fail(new SwarmHttpError(`${path}: the connection broke while reading the answer`, 'unreachable')));
      response.on('end', () => {
        if (settled) return;
        try {
          const body: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          settled = true;
          clearTimeout(timer);
          resolve(body);
        } catch {
          fail(new SwarmHttpError(`${path} did not answer with JSON`, 'bad-response'));
        }
      });
    });
    const timer = setTimeout(() => fail(new SwarmHttpError(`${path} did not answer within ${timeoutMs} ms`, 'timeout')), timeoutMs);
    request.on('error', (error: NodeJS.ErrnoException) => {
      if (request.reusedSocket && !answered && (error.code === 'ECONNRESET' || error.code === 'EPIPE')) return fail(new StaleSocketError(error.code));
      fail(new SwarmHttpError(`cannot connect to ${baseUrl}${error.code ? ` (${error.code})` : ''}`, 'unreachable'));
    });
  });
}

function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export class SwarmHttpClient {
  constructor(
    readonly baseUrl: string,
    private readonly timeoutMs = 3000,
    /** Keep-alive sockets shared by the requests of one target (default: a fresh connection each). */
    private readonly agent?: http.Agent,
  ) {}

  /** True when /health says `{"status":"ok"}`. */
  async health(): Promise<boolean> {
    const body = (await getJson(this.baseUrl, '/health', this.timeoutMs, this.agent)) as { status?: unknown } | null;
    return body?.status === 'ok';
  }

  async engineStatus(): Promise<EngineStatusReading> {
    const body = (await getJson(this.baseUrl, '/get_engine_status', this.timeoutMs, this.agent)) as Record<string, unknown> | null;
    const step = body?.global_step;
    return {
      // The real client reports "unknown" for a response without engine_status; we keep null.
      engineStatus: stringOrNull(body?.engine_status),
      engineStatusDetail: stringOrNull(body?.engine_status_detail),
      globalStep: typeof step === 'number' && Number.isInteger(step) ? step : null,
    };
  }

  /**
   * The raw pool information (`CurrentBatchRolloutPoolInformation`), or `null` when this server has
   * no such route (404). Parse it with training/pool-info.ts: every field is optional.
   */
  async poolInformation(): Promise<Record<string, unknown> | null> {
    try {
      const body = await getJson(this.baseUrl, '/get_current_batch_rollout_pool_information', this.timeoutMs, this.agent);
      return isRecord(body) ? body : {};
    } catch (error) {
      if (error instanceof SwarmHttpError && error.kind === 'not-found') return null;
      throw error;
    }
  }

  /**
   * When the current boot began (ms since the epoch), from the pool information's
   * `booting_start_time` (seconds, float); null when the server does not say.
   */
  async bootingStartTimeMs(): Promise<number | null> {
    const body = await this.poolInformation();
    const seconds = body?.booting_start_time;
    return typeof seconds === 'number' && Number.isFinite(seconds) && seconds > 0 ? Math.round(seconds * 1000) : null;
  }
}
