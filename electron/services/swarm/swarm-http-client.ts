/**
 * Reads the few swarm-server routes the app relies on. Only /health, /get_engine_status and
 * /get_current_batch_rollout_pool_information are stable across server versions (agentjet-swarm.md
 * §0), so everything here tolerates missing fields instead of failing on them.
 */
export interface EngineStatusReading {
  engineStatus: string | null;
  engineStatusDetail: string | null;
  globalStep: number | null;
}

export class SwarmHttpError extends Error {
  constructor(
    message: string,
    readonly kind: 'unreachable' | 'timeout' | 'bad-response',
  ) {
    super(message);
    this.name = 'SwarmHttpError';
  }
}

async function getJson(baseUrl: string, path: string, timeoutMs: number): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(new URL(path, baseUrl), {
      signal: AbortSignal.timeout(timeoutMs),
      headers: { accept: 'application/json' },
    });
  } catch (error) {
    const name = error instanceof Error ? error.name : '';
    if (name === 'TimeoutError' || name === 'AbortError') {
      throw new SwarmHttpError(`${path} did not answer within ${timeoutMs} ms`, 'timeout');
    }
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    throw new SwarmHttpError(`cannot connect to ${baseUrl}${cause ? ` (${cause})` : ''}`, 'unreachable');
  }
  if (!response.ok) {
    throw new SwarmHttpError(`${path} answered HTTP ${response.status}`, 'bad-response');
  }
  try {
    return await response.json();
  } catch {
    throw new SwarmHttpError(`${path} did not answer with JSON`, 'bad-response');
  }
}

function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
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
   * When the current boot began (ms since the epoch), from the pool information's
   * `booting_start_time` (seconds, float); null when the server does not say.
   */
  async bootingStartTimeMs(): Promise<number | null> {
    const body = (await getJson(this.baseUrl, '/get_current_batch_rollout_pool_information', this.timeoutMs)) as Record<string, unknown> | null;
    const seconds = body?.booting_start_time;
    return typeof seconds === 'number' && Number.isFinite(seconds) && seconds > 0 ? Math.round(seconds * 1000) : null;
  }
}
