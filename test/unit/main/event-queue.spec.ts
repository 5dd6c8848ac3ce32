import { beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeWebContents, fakeIpcEvent, ipcMain, resetElectronStub } from '../../stubs/electron';
import { EVENT_QUEUE_LIMIT, EventQueue, listenForRendererReady, trustedSender } from '../../../electron/main/ipc';
import { EVENT_BRIDGE_CHANNEL, RENDERER_READY_CHANNEL } from '../../../electron/shared/contract';

const APP_URL = 'agentswarm://app/index.html';
const isTrusted = trustedSender({ kind: 'bundle', dir: '/opt/app/out/renderer' });

const changed = (engineId: string) => ['swarm:containers-changed', { engineId }] as const;
const bridged = (contents: FakeWebContents) =>
  contents.sent.map((m) => {
    expect(m.channel).toBe(EVENT_BRIDGE_CHANNEL);
    expect(m.args).toHaveLength(1);
    return m.args[0];
  });

beforeEach(() => resetElectronStub());

describe('EventQueue', () => {
  it('buffers until a window is attached AND its page is ready, then flushes in order and goes live', () => {
    const queue = new EventQueue();
    const contents = new FakeWebContents();
    queue.emit(...changed('a'));
    queue.attach(contents);
    queue.emit(...changed('b'));
    expect(contents.sent).toEqual([]);
    queue.markReady(contents.id);
    expect(bridged(contents)).toEqual([
      { channel: 'swarm:containers-changed', payload: { engineId: 'a' } },
      { channel: 'swarm:containers-changed', payload: { engineId: 'b' } },
    ]);
    queue.emit(...changed('c'));
    expect(bridged(contents)[2]).toEqual({ channel: 'swarm:containers-changed', payload: { engineId: 'c' } });
    expect(queue.pendingCount).toBe(0);
  });

  it('ignores a ready signal from any other webContents', () => {
    const queue = new EventQueue();
    const contents = new FakeWebContents();
    queue.attach(contents);
    queue.emit(...changed('a'));
    queue.markReady(new FakeWebContents().id);
    expect(contents.sent).toEqual([]);
    expect(queue.pendingCount).toBe(1);
  });

  it('caps the buffer and drops the oldest events first', () => {
    const queue = new EventQueue(3);
    for (const id of ['1', '2', '3', '4', '5']) queue.emit(...changed(id));
    expect(queue.pendingCount).toBe(3);
    expect(queue.dropped).toBe(2);
    const contents = new FakeWebContents();
    queue.attach(contents);
    queue.markReady(contents.id);
    expect(bridged(contents).map((m) => (m as { payload: { engineId: string } }).payload.engineId)).toEqual([
      '3',
      '4',
      '5',
    ]);
  });

  it('defaults to a cap of 1000', () => {
    const queue = new EventQueue();
    for (let i = 0; i < EVENT_QUEUE_LIMIT + 5; i += 1) queue.emit(...changed(String(i)));
    expect(EVENT_QUEUE_LIMIT).toBe(1000);
    expect(queue.pendingCount).toBe(1000);
    expect(queue.dropped).toBe(5);
  });

  it('drops events once the window is destroyed and never sends to it', () => {
    const queue = new EventQueue();
    const contents = new FakeWebContents();
    queue.attach(contents);
    queue.emit(...changed('a'));
    contents.destroy();
    expect(queue.pendingCount).toBe(0);
    expect(() => queue.emit(...changed('b'))).not.toThrow();
    queue.markReady(contents.id);
    expect(contents.sent).toEqual([]);
  });

  it('buffers again while the page reloads, until it reports ready', () => {
    const queue = new EventQueue();
    const contents = new FakeWebContents();
    queue.attach(contents);
    queue.markReady(contents.id);
    contents.emit('did-start-navigation', { isMainFrame: true, isSameDocument: false });
    queue.emit(...changed('during-reload'));
    expect(contents.sent).toEqual([]);
    // A hash change is not a reload: it must not stop live delivery.
    queue.markReady(contents.id);
    contents.emit('did-start-navigation', { isMainFrame: true, isSameDocument: true });
    queue.emit(...changed('after'));
    expect(bridged(contents)).toHaveLength(2);
  });

  it('survives an event that cannot be sent and logs without the payload', () => {
    const logger = { warn: vi.fn() };
    const queue = new EventQueue(10, logger);
    const contents = new FakeWebContents();
    queue.attach(contents);
    queue.markReady(contents.id);
    const send = vi.spyOn(contents, 'send').mockImplementationOnce(() => {
      throw new Error('An object could not be cloned.');
    });
    queue.emit(...changed('bad'));
    queue.emit(...changed('good'));
    expect(send).toHaveBeenCalledTimes(2);
    expect(logger.warn).toHaveBeenCalledWith('could not send an event to the window', {
      channel: 'swarm:containers-changed',
      name: 'Error',
    });
    expect(bridged(contents)).toEqual([{ channel: 'swarm:containers-changed', payload: { engineId: 'good' } }]);
  });
});

describe('listenForRendererReady', () => {
  it('flushes when our page sends the ready signal, not when a foreign frame does', () => {
    const queue = new EventQueue();
    const contents = new FakeWebContents();
    queue.attach(contents);
    queue.emit(...changed('a'));
    const stop = listenForRendererReady(queue, isTrusted);

    ipcMain.emit(RENDERER_READY_CHANNEL, fakeIpcEvent('https://evil.example/', { sender: contents }));
    expect(contents.sent).toEqual([]);

    ipcMain.emit(RENDERER_READY_CHANNEL, fakeIpcEvent(APP_URL, { sender: contents }));
    expect(bridged(contents)).toHaveLength(1);

    stop();
    expect(ipcMain.listenerCount(RENDERER_READY_CHANNEL)).toBe(0);
  });
});
