import type { DoctorModule } from '../doctor/register';
import type { DomainModule, ServiceContext } from '../domain';
import { checkEnvRefKinds } from '../secrets/secret-binding';
import type { SwarmModule } from '../swarm/register';
import { ProfileRuntime, secretRefsOf } from './profile-runtime';

export interface ProfilesModule extends DomainModule<'profiles'> {
  readonly runtime: ProfileRuntime;
}

/** `profiles:*`: swarm server profiles, one container (or native process) per profile. */
export function registerProfiles(context: ServiceContext, deps: { swarm: SwarmModule; doctor: Pick<DoctorModule, 'run'> }): ProfilesModule {
  const runtime = new ProfileRuntime({
    store: context.profiles,
    engines: context.engines,
    containers: deps.swarm.containers,
    runDoctor: (profileId) => deps.doctor.run(profileId),
    events: context.events,
    logger: context.logger,
    appVersion: context.version,
    vault: context.vault,
  });
  // "Used by" in Settings → Secrets: each profile's env names that take a vault secret.
  context.vault.addUsageSource(() =>
    context.profiles.list().flatMap((profile) => Object.entries(secretRefsOf(profile)).map(([name, secretId]) => ({ secretId, label: `profile ${profile.label} (${name})` }))),
  );
  // `profiles:changed` after every change that can alter a view: the profiles themselves, a
  // container started, stopped or removed by the app, one that ended on its own (the monitor's
  // `ended`), and engines that come, go or reconnect.
  const unsubscribe = [
    context.profiles.onChange(() => runtime.publish()),
    deps.swarm.containers.onChanged(() => runtime.publish()),
    deps.swarm.monitor.onTargets(() => runtime.publish()),
    context.engines.onChange(({ engineId }) => runtime.engineChanged(engineId)),
  ];

  return {
    runtime,
    handlers: {
      'profiles:list': async () => runtime.list(),
      // Secret env takes only env kinds: refused at save, so the user hears it before any start.
      'profiles:add': async (input) => {
        checkEnvRefKinds(context.vault, input.secretRefs, `Profile ${input.label}`);
        return runtime.add(input);
      },
      'profiles:update': async ({ profileId, profile }) => {
        checkEnvRefKinds(context.vault, profile.secretRefs, `Profile ${profile.label}`);
        return runtime.update(profileId, profile);
      },
      'profiles:remove': async ({ profileId }) => runtime.remove(profileId),
      'profiles:command': async ({ profileId }) => runtime.command(profileId),
      'profiles:start': async (request) => runtime.start(request),
      'profiles:stop': async ({ profileId }) => runtime.stop(profileId),
      'profiles:restart': async (request) => runtime.restart(request),
    },
    // The containers found after a restart are known once swarm has rediscovered them: one snapshot then.
    start: async () => runtime.publish(),
    dispose: async () => {
      for (const off of unsubscribe) off();
      await runtime.settled();
      runtime.dispose();
    },
  };
}
