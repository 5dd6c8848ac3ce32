import { describe, expect, expectTypeOf, it } from 'vitest';
import type { ExposedApi } from '../../../electron/shared/api';
import { apiLayout, buildLayoutApi, type Call } from '../../../electron/shared/api';
import {
  eventChannels,
  invokeChannels,
  invokeContract,
  type EventPayload,
  type InvokeInput,
  type InvokeResponse,
} from '../../../electron/shared/contract';
import type { Result } from '../../../electron/shared/result';
import { runHandler } from '../../../electron/services/ipc/run-handler';
import { patchSchemaOf, type LogTail, type Settings, type StoreStatus, type SwarmContainer, type SwarmStatus } from '../../../electron/shared/schemas';
import { z } from 'zod';
import { mergePatch } from '../../../electron/services/util/merge';

// These pins fail `npm run typecheck` when a signature changes without the contract test changing.
describe('contract types', () => {
  it('pins request and response types of the swarm channels', () => {
    expectTypeOf<InvokeInput<'swarm:start'>>().toEqualTypeOf<{
      engineId: string;
      image: string;
      port?: number | undefined;
      networkMode?: 'publish' | 'host' | undefined;
      gpus?: boolean | undefined;
      shmSizeGb?: number | undefined;
    }>();
    expectTypeOf<InvokeResponse<'swarm:start'>>().toEqualTypeOf<SwarmContainer>();
    expectTypeOf<InvokeResponse<'swarm:list'>>().toEqualTypeOf<SwarmContainer[]>();
    expectTypeOf<InvokeResponse<'swarm:remove'>>().toEqualTypeOf<{ removed: true }>();
    expectTypeOf<InvokeResponse<'swarm:statuses'>>().toEqualTypeOf<SwarmStatus[]>();
    expectTypeOf<InvokeResponse<'settings:update'>>().toEqualTypeOf<Settings>();
    expectTypeOf<EventPayload<'swarm:status'>>().toEqualTypeOf<SwarmStatus>();
    expectTypeOf<EventPayload<'swarm:containers-changed'>>().toEqualTypeOf<{ engineId: string }>();
  });

  it('pins the settings status and app log channels', () => {
    expectTypeOf<InvokeInput<'settings:status'>>().toEqualTypeOf<Record<string, never> | undefined>();
    expectTypeOf<InvokeResponse<'settings:status'>>().toEqualTypeOf<StoreStatus>();
    expectTypeOf<EventPayload<'settings:status-changed'>>().toEqualTypeOf<StoreStatus>();
    expectTypeOf<InvokeInput<'app:log'>>().toEqualTypeOf<{ lines?: number | undefined }>();
    expectTypeOf<InvokeResponse<'app:log'>>().toEqualTypeOf<LogTail>();
    expectTypeOf<InvokeResponse<'app:open-log'>>().toEqualTypeOf<{ opened: true; path: string }>();
    expectTypeOf<ExposedApi['settings']['status']>().toEqualTypeOf<Call<'settings:status'>>();
    expectTypeOf<ExposedApi['app']['openLog']>().toEqualTypeOf<Call<'app:open-log'>>();
  });

  it('pins the exposed api shape to the envelope', () => {
    expectTypeOf<ExposedApi['swarm']['start']>().returns.toEqualTypeOf<Promise<Result<SwarmContainer>>>();
    expectTypeOf<ExposedApi['settings']['get']>().returns.toEqualTypeOf<Promise<Result<Settings>>>();
    expectTypeOf<ExposedApi['events']['on']>().parameter(0).toEqualTypeOf<
      | 'swarm:status'
      | 'swarm:containers-changed'
      | 'fleet:state-changed'
      | 'fleet:state-removed'
      | 'settings:changed'
      | 'settings:status-changed'
      | 'servers:changed'
      | 'engines:changed'
      | 'profiles:changed'
      | 'doctor:report'
      | 'images:pull-progress'
      | 'logs:appended'
      | 'training:changed'
      | 'runs:changed'
      | 'app:notification'
      | 'vault:changed'
      | 'secrets:changed'
      | 'dryrun:changed'
      | 'dryrun:traces-changed'
      | 'jobs:changed'
      | 'jobs:log-appended'
      | 'wizard:changed'
      | 'updates:state-changed'
      | 'workers:changed'
      | 'workers:log-appended'
      | 'gpus:sampled'
      | 'alerts:changed'
      | 'alerts:thresholds-changed'
    >();
  });

  it('derives ExposedApi from apiLayout: one Call per layout entry, plus rendererReady and events', () => {
    type Layout = typeof apiLayout;
    expectTypeOf<keyof ExposedApi>().toEqualTypeOf<keyof Layout | 'events'>();
    expectTypeOf<keyof ExposedApi['swarm']>().toEqualTypeOf<keyof Layout['swarm']>();
    expectTypeOf<keyof ExposedApi['app']>().toEqualTypeOf<keyof Layout['app'] | 'rendererReady'>();
    expectTypeOf<ExposedApi['engines']['health']>().toEqualTypeOf<Call<'engines:health'>>();
  });

  it('buildLayoutApi builds exactly the layout, each method invoking its channel with {} by default', async () => {
    const seen: [string, unknown][] = [];
    const api = buildLayoutApi(async (channel, request) => {
      seen.push([channel, request]);
      return { ok: true, value: null };
    }) as unknown as Record<string, Record<string, (request?: unknown) => Promise<unknown>>>;
    const shape = Object.fromEntries(Object.entries(api).map(([ns, methods]) => [ns, Object.keys(methods)]));
    expect(shape).toEqual(Object.fromEntries(Object.entries(apiLayout).map(([ns, methods]) => [ns, Object.keys(methods)])));
    await api['swarm']!['stop']!({ engineId: 'local', containerId: 'a1b2c3d4e5f6' });
    await api['settings']!['get']!();
    expect(seen).toEqual([
      ['swarm:stop', { engineId: 'local', containerId: 'a1b2c3d4e5f6' }],
      ['settings:get', {}],
    ]);
  });

  it('maps every invoke channel to exactly one api method', () => {
    const mapped = Object.values(apiLayout).flatMap((group) => Object.values(group) as string[]);
    expect([...mapped].sort()).toEqual([...invokeChannels].sort());
    expect(new Set(mapped).size).toBe(mapped.length);
  });

  it('names channels domain:verb and gives each a request and a response schema', () => {
    for (const channel of [...invokeChannels, ...eventChannels]) expect(channel).toMatch(/^[a-z]+:[a-z-]+$/);
    for (const channel of invokeChannels) {
      expect(typeof invokeContract[channel].request.safeParse).toBe('function');
      expect(typeof invokeContract[channel].response.safeParse).toBe('function');
    }
  });

  it('fills request defaults and rejects bad input with field names', () => {
    const parsed = invokeContract['swarm:start'].request.parse({ engineId: 'local', image: 'ghcr.io/modelscope/agentjet:main' });
    expect(parsed).toEqual({
      engineId: 'local',
      image: 'ghcr.io/modelscope/agentjet:main',
      port: 10086,
      networkMode: 'publish',
      gpus: true,
      shmSizeGb: 32,
    });
    const bad = invokeContract['swarm:start'].request.safeParse({ engineId: 'local', image: 'rm -rf /', port: 70000 });
    expect(bad.success).toBe(false);
    const paths = bad.error?.issues.map((i) => i.path.join('.'));
    expect(paths).toEqual(expect.arrayContaining(['image', 'port']));
  });
});

describe('engineId in requests', () => {
  /** A valid request per channel that names an engine; each test drops `engineId` from it. */
  const valid: Partial<Record<(typeof invokeChannels)[number], Record<string, unknown>>> = {
    'engines:health': { engineId: 'local' },
    'swarm:list': { engineId: 'local' },
    'swarm:start': { engineId: 'local', image: 'ghcr.io/modelscope/agentjet:main' },
    'swarm:stop': { engineId: 'local', containerId: 'a1b2c3d4e5f6' },
    'swarm:remove': { engineId: 'local', containerId: 'a1b2c3d4e5f6' },
    'profiles:add': { label: 'Qwen 7B', engineId: 'local', image: 'ghcr.io/modelscope/agentjet:main' },
    'images:pull': { engineId: 'local', image: 'ghcr.io/modelscope/agentjet:main' },
    'logs:read': { engineId: 'local', containerId: 'a1b2c3d4e5f6' },
    'logs:export': { engineId: 'local', containerId: 'a1b2c3d4e5f6' },
    'logs:server-log': { engineId: 'local', containerId: 'a1b2c3d4e5f6' },
    'training:view': { engineId: 'local', containerId: 'a1b2c3d4e5f6' },
    'training:series': { engineId: 'local', containerId: 'a1b2c3d4e5f6' },
    'training:interest': { pageId: 'page-1234abcd', engineId: 'local', containerId: 'a1b2c3d4e5f6', shown: true },
    'runs:set-rate': { engineId: 'local', perGpuHour: 2.5 },
    'slurm:jobs': { engineId: 'ssh-cluster' },
    'slurm:clear': { engineId: 'ssh-cluster', jobIds: ['41'] },
  };

  it('every request schema with an engineId requires it (no default engine), and the list above is complete', () => {
    const withEngine = invokeChannels.filter((channel) => {
      const schema = invokeContract[channel].request as z.ZodType & { shape?: Record<string, unknown> };
      return schema.shape !== undefined && 'engineId' in schema.shape;
    });
    expect([...withEngine].sort()).toEqual(Object.keys(valid).sort());
  });

  it.each(Object.entries(valid))('%s without engineId fails with VALIDATION_FAILED naming the field', async (channel, request) => {
    const schema = invokeContract[channel as keyof typeof valid].request;
    let called = false;
    const { engineId: _dropped, ...withoutEngine } = request;
    const result = await runHandler(schema, withoutEngine, () => {
      called = true;
    });
    expect(called).toBe(false);
    expect(result).toMatchObject({ ok: false, error: { code: 'VALIDATION_FAILED', message: expect.stringContaining('engineId') } });
    // The same request with the engine named is fine: the failure is the missing field alone.
    expect((await runHandler(schema, request, () => 'ran')).ok).toBe(true);
  });
});

describe('settings patches are derived from the Settings schema, section by section', () => {
  it('pins settings:update input: every section optional, object sections field by field', () => {
    expectTypeOf<InvokeInput<'settings:update'>>().toEqualTypeOf<{
      language?: 'en' | 'zh-CN' | undefined;
      languageChosen?: boolean | undefined;
      swarm?:
        | {
            image?: string | undefined;
            port?: number | undefined;
            networkMode?: 'publish' | 'host' | undefined;
            gpus?: boolean | undefined;
            shmSizeGb?: number | undefined;
          }
        | undefined;
    }>();
  });

  it('a new section added to a settings schema needs no edit in the patch schema or the merge', () => {
    // A stand-in for a future feature's section ("tunnel"), next to a plain value and an existing section.
    const Future = z.object({
      language: z.enum(['en', 'zh-CN']),
      swarm: z.object({ port: z.number(), gpus: z.boolean() }),
      tunnel: z.object({ localPort: z.number(), keepAlive: z.boolean() }),
    });
    const Patch = patchSchemaOf(Future);
    const patch = Patch.parse({ tunnel: { keepAlive: false } });
    expect(patch).toEqual({ tunnel: { keepAlive: false } });
    expect(Patch.safeParse({ tunnel: { localPort: 'x' } }).success).toBe(false);
    const base = { language: 'en' as const, swarm: { port: 10086, gpus: true }, tunnel: { localPort: 10086, keepAlive: true } };
    expect(Future.parse(mergePatch(base, patch))).toEqual({ ...base, tunnel: { localPort: 10086, keepAlive: false } });
    expect(mergePatch(base, Patch.parse({ language: 'zh-CN', swarm: { gpus: false } }))).toEqual({
      ...base,
      language: 'zh-CN',
      swarm: { port: 10086, gpus: false },
    });
  });
});
