import http from 'node:http';

/**
 * Reads the few swarm-server routes the app relies on. Only /health, /get_engine_status and
 * /get_current_batch_rollout_pool_information are stable across server versions (agentjet-swarm.md
 * §0), so everything here tolerates missing fields instead of failing on them.
 *
 * Every request goes on a fresh connection with `Connection: close` (node:http, `agent: false`),
 * as upstream's overwatch does: a pooled keep-alive socket can stay pinned to a stale worker, and
 * after a 500 the server drops the socket without saying so (reference appendix point 13).
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

/** GET `path` on a fresh connection; resolves the parsed JSON, rejects with a SwarmHttpError. */
export function getJson(baseUrl: string, path: string, timeoutMs: number): Promise<unknown> {
  const url = new URL(path, baseUrl);
  return new Promise((resolve, reject) => {
    let settled = false;
    const fail = (error: SwarmHttpError): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.destroy();
      reject(error);
    };
    const request = http.get(url, { agent: false, headers: { accept: 'application/json', connection: 'close' } }, (response) => {
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
  ) {}

  /** True when /health says `{"status":"ok"}`. */
  async health(): Promise<boolean> {
    const body = (await getJson(this.baseUrl, '/health', this.timeoutMs)) as { status?: unknown } | null;
    return body?.status === 'ok';
  }

  async engineStatus(): Promise<EngineStatusReading> {
    const body = (await getJson(this.baseUrl, '/get_engine_status', this.timeoutMs)) as Record<string, unknown> | null;
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
      const body = await getJson(this.baseUrl, '/get_current_batch_rollout_pool_information', this.timeoutMs);
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
