/**
 * TEST DOUBLE — STAND-IN for the `electron` module. NOT ELECTRON.
 *
 * The real module cannot be loaded under plain Node/vitest here: `require('electron')` tries to
 * download the Electron binary and throws. vitest's `unit` and `integration` projects alias
 * `electron` to this file, so main-process and preload code run against these recorders instead.
 * Each fake keeps only what the tests need to observe (options passed in, handlers registered,
 * messages sent) and offers a way to trigger events. `resetElectronStub()` clears everything.
 */
import { EventEmitter } from 'node:events';

type Handler = (...args: unknown[]) => unknown;

// ---------------------------------------------------------------------------------------------
// app

/** `app.commandLine`: records appended switches; a test can pre-set what the user typed. */
class FakeCommandLine {
  readonly switches = new Map<string, string>();
  /** Every `appendSwitch`, and whether the app was ready then (Chromium reads some switches before ready only). */
  readonly appended: { name: string; value: string; afterReady: boolean }[] = [];
  hasSwitch(name: string): boolean {
    return this.switches.has(name);
  }
  getSwitchValue(name: string): string {
    return this.switches.get(name) ?? '';
  }
  appendSwitch(name: string, value = ''): void {
    this.appended.push({ name, value, afterReady: app.isReady() });
    this.switches.set(name, value);
  }
}

class FakeApp extends EventEmitter {
  isPackaged = false;
  singleInstanceLock = true;
  quitCalls = 0;
  paths: Record<string, string> = { userData: '/tmp/agentswarm-stub/userData' };
  version = '0.0.0-stub';
  private readyResolve: (() => void) | null = null;
  private ready: Promise<void> = Promise.resolve();

  requestSingleInstanceLock(): boolean {
    return this.singleInstanceLock;
  }
  /** True once a `whenReady()` caller has resumed (what `app.isReady()` reports in Electron). */
  readyReached = false;
  whenReady(): Promise<void> {
    return this.ready.then(() => {
      this.readyReached = true;
    });
  }
  isReady(): boolean {
    return this.readyReached;
  }
  /** Makes `whenReady()` pend until `fireReady()`, to test what happens before ready. */
  holdReady(): void {
    this.ready = new Promise((resolve) => (this.readyResolve = resolve));
  }
  fireReady(): void {
    this.readyResolve?.();
  }
  getPath(name: string): string {
    const path = this.paths[name];
    if (path === undefined) throw new Error(`stub app.getPath: no path for ${name}`);
    return path;
  }
  getVersion(): string {
    return this.version;
  }
  quit(): void {
    this.quitCalls += 1;
  }
  exitCode: number | null = null;
  exit(code = 0): void {
    this.exitCode = code;
  }
  readonly commandLine = new FakeCommandLine();
  sandboxEnabled = false;
  enableSandbox(): void {
    this.sandboxEnabled = true;
  }
  /** Emits like Electron does for app events that can be vetoed; returns whether one was. */
  emitPreventable(name: string, ...args: unknown[]): boolean {
    let prevented = false;
    this.emit(name, { preventDefault: () => (prevented = true) }, ...args);
    return prevented;
  }
}

// ---------------------------------------------------------------------------------------------
// BrowserWindow + webContents

export interface SentMessage {
  channel: string;
  args: unknown[];
}

let nextContentsId = 1;

export class FakeWebContents extends EventEmitter {
  readonly id = nextContentsId++;
  readonly sent: SentMessage[] = [];
  windowOpenHandler: Handler | null = null;
  destroyed = false;
  url = '';

  send(channel: string, ...args: unknown[]): void {
    if (this.destroyed) throw new Error('stub webContents: send after destroy');
    this.sent.push({ channel, args });
  }
  setWindowOpenHandler(handler: Handler): void {
    this.windowOpenHandler = handler;
  }
  isDestroyed(): boolean {
    return this.destroyed;
  }
  getURL(): string {
    return this.url;
  }
  destroy(): void {
    this.destroyed = true;
    this.emit('destroyed');
  }
  /**
   * Emits like Electron does for guarded events (`will-navigate`, `will-attach-webview`…): the first
   * argument is an event object carrying `fields` (e.g. `{ url }`) and `preventDefault()`.
   * Returns whether a listener prevented the default.
   */
  emitPreventable(name: string, fields: Record<string, unknown> = {}, ...args: unknown[]): boolean {
    let prevented = false;
    const event = { ...fields, preventDefault: () => (prevented = true) };
    this.emit(name, event, ...args);
    return prevented;
  }
}

export class BrowserWindow extends EventEmitter {
  static readonly instances: BrowserWindow[] = [];
  static getAllWindows(): BrowserWindow[] {
    return BrowserWindow.instances.filter((w) => !w.destroyed);
  }

  readonly options: Record<string, unknown>;
  readonly webContents = new FakeWebContents();
  loaded: { kind: 'url' | 'file'; target: string } | null = null;
  shown = false;
  focused = false;
  minimized = false;
  destroyed = false;

  constructor(options: Record<string, unknown> = {}) {
    super();
    this.options = options;
    BrowserWindow.instances.push(this);
    app.emit('browser-window-created', {}, this);
    app.emit('web-contents-created', {}, this.webContents);
  }
  loadURL(url: string): Promise<void> {
    this.loaded = { kind: 'url', target: url };
    this.webContents.url = url;
    return Promise.resolve();
  }
  loadFile(file: string): Promise<void> {
    this.loaded = { kind: 'file', target: file };
    this.webContents.url = `file://${file}`;
    return Promise.resolve();
  }
  show(): void {
    this.shown = true;
  }
  focus(): void {
    this.focused = true;
  }
  isMinimized(): boolean {
    return this.minimized;
  }
  restore(): void {
    this.minimized = false;
  }
  isDestroyed(): boolean {
    return this.destroyed;
  }
  bounds = { x: 0, y: 0, width: 1200, height: 800 };
  maximized = false;
  getNormalBounds(): { x: number; y: number; width: number; height: number } {
    return { ...this.bounds };
  }
  setBounds(bounds: { x: number; y: number; width: number; height: number }): void {
    this.bounds = { ...bounds };
  }
  isMaximized(): boolean {
    return this.maximized;
  }
  maximize(): void {
    this.maximized = true;
    this.emit('maximize');
  }
  /** Simulates the user dragging the window: new bounds and a 'move' event. */
  moveTo(bounds: { x: number; y: number; width: number; height: number }): void {
    this.bounds = { ...bounds };
    this.emit('move');
  }
  /** Simulates the user closing the window. */
  close(): void {
    this.emit('close', { preventDefault: () => undefined });
    this.destroyed = true;
    this.webContents.destroy();
    this.emit('closed');
  }
}

// ---------------------------------------------------------------------------------------------
// ipcMain

class FakeIpcMain extends EventEmitter {
  readonly handlers = new Map<string, Handler>();

  handle(channel: string, handler: Handler): void {
    if (this.handlers.has(channel)) {
      // Electron throws on a second handler for the same channel; so does the stand-in.
      throw new Error(`Attempted to register a second handler for '${channel}'`);
    }
    this.handlers.set(channel, handler);
  }
  removeHandler(channel: string): void {
    this.handlers.delete(channel);
  }
  /** Calls the registered handler like `ipcRenderer.invoke` would, with a fake event. */
  async invoke(channel: string, event: unknown, ...args: unknown[]): Promise<unknown> {
    const handler = this.handlers.get(channel);
    if (!handler) throw new Error(`No handler registered for '${channel}'`);
    return handler(event, ...args);
  }
}

/** Builds the IPC event main-process handlers receive, as sent from a frame at `url`. */
export function fakeIpcEvent(
  url: string | null,
  options: { sender?: FakeWebContents; isSubFrame?: boolean } = {},
): { senderFrame: { url: string; parent: object | null } | null; sender: FakeWebContents } {
  return {
    senderFrame: url === null ? null : { url, parent: options.isSubFrame ? {} : null },
    sender: options.sender ?? new FakeWebContents(),
  };
}

// ---------------------------------------------------------------------------------------------
// session

type HeadersListener = (
  details: { url: string; resourceType?: string; responseHeaders?: Record<string, string[]> },
  callback: (response: { responseHeaders?: Record<string, string[]>; cancel?: boolean }) => void,
) => void;

class FakeSession {
  headersListener: HeadersListener | null = null;
  permissionRequestHandler: Handler | null = null;
  permissionCheckHandler: Handler | null = null;
  readonly webRequest = {
    onHeadersReceived: (listener: HeadersListener): void => {
      this.headersListener = listener;
    },
  };
  setPermissionRequestHandler(handler: Handler | null): void {
    this.permissionRequestHandler = handler;
  }
  setPermissionCheckHandler(handler: Handler | null): void {
    this.permissionCheckHandler = handler;
  }
}

// ---------------------------------------------------------------------------------------------
// renderer side: contextBridge + ipcRenderer

class FakeContextBridge {
  readonly exposed = new Map<string, unknown>();
  exposeInMainWorld(key: string, api: unknown): void {
    if (this.exposed.has(key)) throw new Error(`Cannot bind an API on top of an existing property '${key}'`);
    this.exposed.set(key, api);
  }
}

class FakeIpcRenderer extends EventEmitter {
  readonly invocations: { channel: string; args: unknown[] }[] = [];
  readonly sent: SentMessage[] = [];
  invokeResult: unknown = { ok: true, value: null };

  invoke(channel: string, ...args: unknown[]): Promise<unknown> {
    this.invocations.push({ channel, args });
    return Promise.resolve(this.invokeResult);
  }
  send(channel: string, ...args: unknown[]): void {
    this.sent.push({ channel, args });
  }
  /** Delivers a message from main, with a fake IpcRendererEvent as the first argument. */
  deliver(channel: string, ...args: unknown[]): void {
    this.emit(channel, { sender: this, senderId: 0 }, ...args);
  }
}

// ---------------------------------------------------------------------------------------------
// protocol (TEST DOUBLE: records scheme privileges and handlers; `fetch()` calls a handler the way
// Electron would for a request on that scheme, with a real WHATWG Request/Response from Node)

type ProtocolHandler = (request: Request) => Response | Promise<Response>;

class FakeProtocol {
  readonly privileged: { scheme: string; privileges?: Record<string, boolean> }[] = [];
  readonly handlers = new Map<string, ProtocolHandler>();
  registerSchemesAsPrivileged(schemes: { scheme: string; privileges?: Record<string, boolean> }[]): void {
    // Electron only honours this before 'ready'; the stand-in fails loudly instead of silently.
    if (app.isReady()) throw new Error('protocol.registerSchemesAsPrivileged must be called before app ready');
    this.privileged.push(...schemes);
  }
  handle(scheme: string, handler: ProtocolHandler): void {
    if (this.handlers.has(scheme)) throw new Error(`Failed to register protocol: ${scheme}`);
    this.handlers.set(scheme, handler);
  }
  isProtocolHandled(scheme: string): boolean {
    return this.handlers.has(scheme);
  }
  /** What a page request for `url` would get back. */
  async fetch(url: string, init?: RequestInit): Promise<Response> {
    const scheme = url.slice(0, url.indexOf(':'));
    const handler = this.handlers.get(scheme);
    if (!handler) throw new Error(`stub protocol: no handler for ${scheme}:`);
    return handler(new Request(url, init));
  }
}

class FakeShell {
  readonly opened: string[] = [];
  readonly openedPaths: string[] = [];
  /** What the next `openPath` resolves to: '' means success, as in Electron; a text is its error. */
  openPathResult = '';
  openExternal(url: string): Promise<void> {
    this.opened.push(url);
    return Promise.resolve();
  }
  openPath(path: string): Promise<string> {
    this.openedPaths.push(path);
    return Promise.resolve(this.openPathResult);
  }
}

// ---------------------------------------------------------------------------------------------
// powerMonitor + net: sleep/wake and whether the machine is online

/** Emits what the test fires ('resume', 'unlock-screen', …), like Electron's powerMonitor. */
class FakePowerMonitor extends EventEmitter {}

class FakeNet {
  online = true;
  isOnline(): boolean {
    return this.online;
  }
}

// ---------------------------------------------------------------------------------------------
// Notification: records what would be shown; `isSupported()` answers `Notification.supported`

export class Notification extends EventEmitter {
  static supported = true;
  static readonly instances: Notification[] = [];
  shown = false;
  constructor(readonly options: { title?: string; body?: string }) {
    super();
    Notification.instances.push(this);
  }
  static isSupported(): boolean {
    return Notification.supported;
  }
  show(): void {
    this.shown = true;
  }
}

// ---------------------------------------------------------------------------------------------
// safeStorage (TEST DOUBLE: NOT ENCRYPTION. Models what the glue must react to — which backend
// Linux picked, whether encryption is available, the plain-text opt-in — with a reversible
// marker transform so a test can see that something was sealed and opened again.)

/** What a test can make the stand-in report: a real store, Linux's no-keyring fallback, or a store that fails. */
export type FakeStorageKind = 'gnome_libsecret' | 'kwallet5' | 'kwallet6' | 'basic_text' | 'unavailable';

class FakeSafeStorage {
  kind: FakeStorageKind = 'gnome_libsecret';
  usePlainText = false;
  readonly plainTextCalls: boolean[] = [];
  encryptCalls = 0;
  setBackend(kind: FakeStorageKind): void {
    this.kind = kind;
  }
  /** Like Electron on Linux: 'unknown' before ready; 'unavailable' is libsecret chosen with no daemon answering. */
  getSelectedStorageBackend(): string {
    if (!app.isReady()) return 'unknown';
    return this.kind === 'unavailable' ? 'gnome_libsecret' : this.kind;
  }
  /**
   * basic_text is available only after the plain-text opt-in: what recent Electron does with
   * `--password-store=basic` (field-survey §3), and the case the glue must not paper over.
   */
  private available(): boolean {
    if (!app.isReady()) return false;
    if (this.kind === 'unavailable') return false;
    if (this.kind === 'basic_text') return this.usePlainText;
    return true;
  }
  isAsyncEncryptionAvailable(): Promise<boolean> {
    return Promise.resolve(this.available());
  }
  isEncryptionAvailable(): boolean {
    return this.available();
  }
  setUsePlainTextEncryption(usePlainText: boolean): void {
    this.plainTextCalls.push(usePlainText);
    this.usePlainText = usePlainText;
  }
  encryptStringAsync(plainText: string): Promise<Buffer> {
    if (!this.available()) return Promise.reject(new Error('Error while encrypting the text provided to safeStorage.encryptString. Encryption is not available.'));
    this.encryptCalls += 1;
    return Promise.resolve(Buffer.from(`stub-sealed:${this.kind}:${Buffer.from(plainText).toString('hex')}`));
  }
  decryptStringAsync(encrypted: Buffer): Promise<{ result: string; shouldReEncrypt: boolean }> {
    const match = /^stub-sealed:([a-z_0-9]+):([0-9a-f]*)$/.exec(encrypted.toString());
    if (!this.available() || !match) return Promise.reject(new Error('Error while decrypting the ciphertext provided to safeStorage.decryptString.'));
    return Promise.resolve({ result: Buffer.from(match[2]!, 'hex').toString(), shouldReEncrypt: false });
  }
}

// ---------------------------------------------------------------------------------------------
// screen: the displays' work areas a test sets up (a laptop alone, or with a monitor on the right)

type Rect = { x: number; y: number; width: number; height: number };

class FakeScreen extends EventEmitter {
  displays: { id: number; bounds: Rect; workArea: Rect }[] = [
    { id: 1, bounds: { x: 0, y: 0, width: 1920, height: 1080 }, workArea: { x: 0, y: 0, width: 1920, height: 1040 } },
  ];
  getAllDisplays(): { id: number; bounds: Rect; workArea: Rect }[] {
    return this.displays.map((d) => structuredClone(d));
  }
}

// ---------------------------------------------------------------------------------------------
// exports, named like the real module

export let app = new FakeApp();
export let ipcMain = new FakeIpcMain();
export let session = { defaultSession: new FakeSession() };
export let contextBridge = new FakeContextBridge();
export let ipcRenderer = new FakeIpcRenderer();
export let shell = new FakeShell();
export let protocol = new FakeProtocol();
export let powerMonitor = new FakePowerMonitor();
export let net = new FakeNet();
export let safeStorage = new FakeSafeStorage();
export let screen = new FakeScreen();

/** Fresh fakes for every test; module bindings are live, so importers see the new objects. */
export function resetElectronStub(): void {
  app = new FakeApp();
  ipcMain = new FakeIpcMain();
  session = { defaultSession: new FakeSession() };
  contextBridge = new FakeContextBridge();
  ipcRenderer = new FakeIpcRenderer();
  shell = new FakeShell();
  protocol = new FakeProtocol();
  powerMonitor = new FakePowerMonitor();
  net = new FakeNet();
  safeStorage = new FakeSafeStorage();
  screen = new FakeScreen();
  BrowserWindow.instances.length = 0;
  Notification.instances.length = 0;
  Notification.supported = true;
}

// Getters, so a default import sees the fakes of the current test rather than the first ones.
export default {
  get app() { return app; },
  get ipcMain() { return ipcMain; },
  get session() { return session; },
  get contextBridge() { return contextBridge; },
  get ipcRenderer() { return ipcRenderer; },
  get shell() { return shell; },
  get protocol() { return protocol; },
  get powerMonitor() { return powerMonitor; },
  get net() { return net; },
  get safeStorage() { return safeStorage; },
  get screen() { return screen; },
  BrowserWindow,
  Notification,
};
