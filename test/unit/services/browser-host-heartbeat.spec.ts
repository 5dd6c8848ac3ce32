import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startBrowserHost, type BrowserHost } from '../../../electron/browser-host/server';
import type { Handlers } from '../../../electron/services/ipc/handlers';
import { EventHub } from '../../../electron/services/events';

// The browser host's heartbeat on real sockets: only a socket that asks (`heartbeat=1`, the page's) gets it, as a
// message without a channel; events still arrive; other sockets (scripts, older pages) see no extra message.
describe('browser host heartbeat', () => {
  let dir: string;
  let hub: EventHub;
  let host: BrowserHost;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agentswarm-heartbeat-'));
    hub = new EventHub();
    host = await startBrowserHost({ handlers: {} as Handlers, hub, staticDir: dir, limits: { heartbeatMs: 50 } });
  });
  afterAll(async () => {
    await host?.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function connect(query: string): Promise<{ ws: WebSocket; messages: unknown[] }> {
    const ws = new WebSocket(`ws://127.0.0.1:${host.port}/api/events?token=${host.token}${query}`);
    const messages: unknown[] = [];
    ws.on('message', (data: Buffer) => messages.push(JSON.parse(data.toString())));
    await new Promise((ok, ko) => ws.once('open', ok).once('error', ko));
    return { ws, messages };
  }

  it('beats on the sockets that asked, between events; the others get events only', async () => {
    const page = await connect('&heartbeat=1');
    const script = await connect('');
    await new Promise((ok) => setTimeout(ok, 300));
    hub.emit('engines:changed', {} as never);
    await new Promise((ok) => setTimeout(ok, 100));
    const beats = page.messages.filter((m) => typeof m === 'object' && m !== null && 'heartbeat' in m);
    expect(beats.length).toBeGreaterThanOrEqual(3);
    expect(beats.every((m) => typeof (m as { heartbeat: unknown }).heartbeat === 'number' && !('channel' in (m as object)))).toBe(true);
    expect(page.messages).toContainEqual({ channel: 'engines:changed', payload: {} });
    expect(script.messages).toEqual([{ channel: 'engines:changed', payload: {} }]);
    page.ws.close();
    script.ws.close();
  });
});
