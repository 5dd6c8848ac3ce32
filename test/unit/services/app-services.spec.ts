import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { registerApp } from '../../../electron/services/app/register';
import { createAppServices } from '../../../electron/services/app-services';
import type { ServiceContext } from '../../../electron/services/domain';
import { EngineRegistry } from '../../../electron/services/engines/engine-registry';
import { registerEngines } from '../../../electron/services/engines/register';
import { EventHub } from '../../../electron/services/events';
import { registerSettings } from '../../../electron/services/settings/register';
import { SettingsService } from '../../../electron/services/settings/settings-service';
import { registerSwarm } from '../../../electron/services/swarm/register';
import { invokeChannels } from '../../../electron/shared/contract';
import { AppLog } from '../../../electron/services/util/app-log';
import { registerDoctor } from '../../../electron/services/doctor/register';
import { registerImages } from '../../../electron/services/images/register';
import { registerLogs } from '../../../electron/services/logs/register';
import { eventNotifier } from '../../../electron/services/notifier';
import { ProfileStore } from '../../../electron/services/profiles/profile-store';
import { registerProfiles } from '../../../electron/services/profiles/register';
import { registerTraining } from '../../../electron/services/training/register';
import { startRecordingDocker } from '../../fixtures/fake-docker/recording-docker';
import { readFile } from 'node:fs/promises';
import { SecretVault } from '../../../electron/services/secrets/secret-vault';
import { PageVisibility } from '../../../electron/services/app/visibility';
import { defaultResourcesDir } from '../../../electron/services/util/resources-dir';

let dir: string | null = null;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = null;
});

async function makeContext(): Promise<ServiceContext> {
  dir = await mkdtemp(join(tmpdir(), 'agentswarm-register-'));
  const events = new EventHub();
  const appLog = new AppLog(dir);
  return {
    host: 'browser',
    version: '0.0.0-test',
    events,
    engines: new EngineRegistry(),
    settings: new SettingsService(dir, events, appLog),
    logger: appLog,
    appLog,
    resourcesDir: defaultResourcesDir(),
    dataDir: dir,
    downloadsDir: join(dir, 'exports'),
    notifier: eventNotifier(events),
    profiles: new ProfileStore(dir, appLog),
    vault: new SecretVault({ dataDir: dir, host: 'browser', logger: appLog }),
    visibility: new PageVisibility(),
  };
}

describe('domain register() modules', () => {
  it('each domain handles exactly the channels named after it', async () => {
    const context = await makeContext();
    const modules = {
      app: registerApp(context),
      engines: registerEngines(context),
      settings: registerSettings(context, {
        transferTargets: () => {
          throw new Error('export/import are not called in this test');
        },
      }),
      swarm: registerSwarm(context),
    };
    const doctor = registerDoctor(context);
    const more = {
      doctor,
      images: registerImages(context),
      profiles: registerProfiles(context, { swarm: modules.swarm, doctor }),
      logs: registerLogs(context, { swarm: modules.swarm }),
      training: registerTraining(context, { swarm: modules.swarm }),
    };
    for (const [domain, module] of Object.entries(more)) {
      const own = invokeChannels.filter((channel) => channel.startsWith(`${domain}:`));
      expect(Object.keys(module.handlers).sort(), domain).toEqual([...own].sort());
    }
    for (const module of Object.values(more)) await (module as { dispose?: () => unknown }).dispose?.();
    for (const [domain, module] of Object.entries(modules)) {
      const own = invokeChannels.filter((channel) => channel.startsWith(`${domain}:`));
      expect(Object.keys(module.handlers).sort(), domain).toEqual([...own].sort());
    }
    await modules.swarm.dispose?.();
  });

  it('createAppServices has one handler per contract channel, all coming from the domain modules', async () => {
    dir = await mkdtemp(join(tmpdir(), 'agentswarm-register-'));
    const services = createAppServices({
      dataDir: dir,
      host: 'browser',
      version: '0.0.0-test',
      events: new EventHub(),
      dockerHost: `unix://${join(dir, 'no-docker.sock')}`,
    });
    expect(Object.keys(services.handlers).sort()).toEqual([...invokeChannels].sort());
    await services.start();
    await expect(services.handlers['app:info']({})).resolves.toMatchObject({ version: '0.0.0-test', host: 'browser' });
    await expect(services.handlers['settings:get']({})).resolves.toMatchObject({ language: 'en' });
    await services.dispose();
  });

  it('start() never throws: a domain that fails to start is logged, and swarm servers are still looked for', async () => {
    dir = await mkdtemp(join(tmpdir(), 'agentswarm-register-'));
    const docker = await startRecordingDocker(dir);
    try {
      const services = createAppServices({ dataDir: dir, host: 'browser', version: '0.0.0-test', events: new EventHub(), dockerHost: docker.host });
      // Whatever goes wrong in settings (today's load never throws; a future one might).
      services.settings.load = () => Promise.reject(new Error('settings exploded'));
      await expect(services.start()).resolves.toBeUndefined();
      expect(docker.listedSwarmContainers()).toBe(true);
      const log = await readFile(join(dir, 'app.log'), 'utf8');
      expect(log).toContain('settings failed to start; the other parts start anyway');
      expect(log).toContain('settings exploded');
      await services.dispose();
    } finally {
      await docker.close();
    }
  });
});
