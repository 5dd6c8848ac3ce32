import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request, type ClientRequest, type IncomingMessage, type RequestOptions, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configureRequestOptions, configureRequestUrl, HttpExecutor, type DownloadOptions } from 'builder-util-runtime';
import { AppImageUpdater } from 'electron-updater';
import type { AppAdapter } from 'electron-updater/out/AppAdapter';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { electronUpdates, type AutoUpdaterLike } from '../../../../electron/main/updater';
import { UpdateService } from '../../../../electron/services/updates/update-service';
import { UpdatesView } from '../../../../electron/shared/schemas-updates';
import { freePort } from '../../../support/helpers';

/**
 * Auto-update against a local update feed, with the REAL electron-updater (6.8.10): its
 * AppImageUpdater reads app-update.yml (generic provider → our 127.0.0.1 server), fetches
 * latest-linux.yml, compares versions, downloads the file and checks its SHA-512 — driven by our
 * state machine through the same adapter the packaged app uses (electron/main/updater.ts).
 *
 * What Electron would add and is NOT exercised here: the HTTP client (electron's `net`; here a
 * plain node:http executor, below), the app adapter (app paths, quit; here a stand-in object),
 * and the install itself (quitAndInstall replaces the AppImage and relaunches; Windows'
 * publisher-signature check and Squirrel.Mac's code-signature check run only on those systems).
 */

/**
 * The one piece electron-updater leaves to Electron: how an HTTP request is made. This mirrors its
 * ElectronHttpExecutor with node:http in place of `net`; the download still goes through
 * builder-util-runtime's `doDownload`, which is where the SHA-512 of the file is checked.
 */
class NodeHttpFeedExecutor extends HttpExecutor<ClientRequest> {
  createRequest(options: RequestOptions, callback: (response: IncomingMessage) => void): ClientRequest {
    return request(options, callback);
  }
  download(url: URL, destination: string, options: DownloadOptions): Promise<string> {
    return options.cancellationToken.createPromise<string>((resolve, reject, onCancel) => {
      const requestOptions: RequestOptions = { headers: options.headers ?? undefined };
      configureRequestUrl(url, requestOptions);
      configureRequestOptions(requestOptions);
      this.doDownload(
        requestOptions,
        { destination, options, onCancel, callback: (error) => (error ? reject(error) : resolve(destination)), responseHandler: null },
        0,
      );
    });
  }
}

const UPDATE_FILE = 'AgentSwarm-Desktop-0.2.0-x86_64.AppImage';
const FEED_FILE = process.arch === 'x64' ? 'latest-linux.yml' : `latest-linux-${process.arch}.yml`;

let dir: string;
let server: Server;
let port: number;
let files: Map<string, Buffer>;
let requests: string[];
const savedAppImage = process.env['APPIMAGE'];

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'agentswarm-update-feed-'));
  files = new Map();
  requests = [];
  port = await freePort();
  server = createServer((req, res) => {
    const name = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname.slice(1));
    requests.push(name);
    const body = files.get(name);
    if (!body) {
      res.writeHead(404).end('not found');
      return;
    }
    res.writeHead(200, { 'Content-Length': body.length, 'Content-Type': 'application/octet-stream' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  // The running AppImage the update would replace (electron-updater insists on knowing it).
  writeFileSync(join(dir, 'old.AppImage'), 'old');
  process.env['APPIMAGE'] = join(dir, 'old.AppImage');
});

afterEach(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (savedAppImage === undefined) delete process.env['APPIMAGE'];
  else process.env['APPIMAGE'] = savedAppImage;
  rmSync(dir, { recursive: true, force: true });
});

/** Publishes version 0.2.0 on the feed: the file and a latest-linux.yml naming its SHA-512 (as electron-builder writes it). */
function publish(options: { fileBody: Buffer; claimedSha512Of?: Buffer; version?: string }): void {
  const sha512 = createHash('sha512').update(options.claimedSha512Of ?? options.fileBody).digest('base64');
  files.set(UPDATE_FILE, options.fileBody);
  files.set(
    FEED_FILE,
    Buffer.from(
      stringify({
        version: options.version ?? '0.2.0',
        files: [{ url: UPDATE_FILE, sha512, size: options.fileBody.length }],
        path: UPDATE_FILE,
        sha512,
        // Unquoted in the YAML (the `yaml` package writes it so): electron-updater's js-yaml reads a Date,
        // which the adapter must turn back into text (electron-builder itself quotes it).
        releaseDate: '2026-12-01T00:00:00.000Z',
        releaseNotes: 'Faster start; Settings → Updates.',
      }),
    ),
  );
}

/** The real AppImageUpdater, configured as a packaged app would be (app-update.yml next to the app). */
function realUpdater(): AppImageUpdater {
  const configPath = join(dir, 'app-update.yml');
  writeFileSync(configPath, stringify({ provider: 'generic', url: `http://127.0.0.1:${port}/`, updaterCacheDirName: 'agentswarm-desktop-updater' }));
  mkdirSync(join(dir, 'userData'));
  const adapter: AppAdapter = {
    version: '0.1.0',
    name: 'AgentSwarm Desktop',
    isPackaged: true,
    appUpdateConfigPath: configPath,
    userDataPath: join(dir, 'userData'),
    baseCachePath: join(dir, 'cache'),
    whenReady: async () => undefined,
    relaunch: () => undefined,
    quit: () => undefined,
    onQuit: () => undefined,
  };
  const updater = new AppImageUpdater(undefined, adapter);
  // Without Electron's `net`, the updater has no HTTP client: give it node:http (not a public field).
  (updater as unknown as { httpExecutor: HttpExecutor<ClientRequest> }).httpExecutor = new NodeHttpFeedExecutor();
  // Our test file has no embedded block map: a differential download would fail and fall back anyway.
  updater.disableDifferentialDownload = true;
  return updater;
}

function service(updater: AppImageUpdater): { service: UpdateService; views: UpdatesView[] } {
  const views: UpdatesView[] = [];
  // Configured by the same glue as in the packaged AppImage (autoDownload off, its logger ours).
  const host = electronUpdates({
    isPackaged: true,
    platform: 'linux',
    env: { APPIMAGE: process.env['APPIMAGE'] },
    loadAutoUpdater: () => updater as unknown as AutoUpdaterLike,
    logger: { warn: () => undefined, info: () => undefined },
  });
  const machine = new UpdateService({
    currentVersion: '0.1.0',
    updater: host.updater,
    runningJobs: () => [],
    onChange: (view) => views.push(UpdatesView.parse(view)),
  });
  return { service: machine, views };
}

describe('auto-update against a local feed (real electron-updater, no Electron)', () => {
  it('checks, finds 0.2.0 with its notes, downloads it with progress, verifies its SHA-512 and is ready', async () => {
    const body = randomBytes(256 * 1024);
    publish({ fileBody: body });
    const { service: machine, views } = service(realUpdater());

    const checked = await machine.check();
    expect(checked.state).toEqual({ status: 'available', version: '0.2.0', notes: 'Faster start; Settings → Updates.', releaseDate: '2026-12-01T00:00:00.000Z' });
    expect(requests).toContain(FEED_FILE);

    machine.download();
    await machine.settled();
    expect(machine.view().state).toEqual({ status: 'ready', version: '0.2.0', notes: 'Faster start; Settings → Updates.' });
    expect(requests).toContain(UPDATE_FILE);
    const downloading = views.filter((v) => v.state.status === 'downloading');
    expect(downloading.length).toBeGreaterThanOrEqual(1);
    // The verified file sits in the updater's cache, byte for byte what the feed served.
    const pending = join(dir, 'cache', 'agentswarm-desktop-updater', 'pending', UPDATE_FILE);
    expect(existsSync(pending)).toBe(true);
    expect(readFileSync(pending).equals(body)).toBe(true);
  });

  it('says not-available when the feed offers the running version', async () => {
    publish({ fileBody: randomBytes(1024), version: '0.1.0' });
    const { service: machine } = service(realUpdater());
    expect((await machine.check()).state).toMatchObject({ status: 'not-available' });
    expect(requests).toEqual([FEED_FILE]);
  });

  it('discards a download whose SHA-512 differs from latest-linux.yml: error{checksum-mismatch}, nothing ready', async () => {
    publish({ fileBody: randomBytes(64 * 1024), claimedSha512Of: Buffer.from('another file') });
    const { service: machine } = service(realUpdater());
    await machine.check();
    machine.download();
    await machine.settled();
    expect(machine.view().state).toMatchObject({ status: 'error', code: 'checksum-mismatch' });
    expect(existsSync(join(dir, 'cache', 'agentswarm-desktop-updater', 'pending', UPDATE_FILE))).toBe(false);
  });

  it('a feed without latest-linux.yml is error{feed-missing}; an unreachable feed is error{network}', async () => {
    const { service: machine } = service(realUpdater());
    expect((await machine.check()).state).toMatchObject({ status: 'error', code: 'feed-missing' });
    await new Promise<void>((resolve) => server.close(() => resolve()));
    server = createServer(); // not listening: afterEach's close() just calls back
    expect((await machine.check()).state).toMatchObject({ status: 'error', code: 'network' });
  });
});
