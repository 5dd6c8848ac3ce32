import type { GpuSample } from '../../../electron/shared/schemas-fleet';
import type { FakeApi } from '../fake-api';

/** TEST DOUBLE support: the fleet home's GPU samples and home-shown leases, as the backend's gpus module answers them. */
export function installFleetFake(api: FakeApi, samples: GpuSample[] = [], rates: { engineId: string; perGpuHour: number; currency: string }[] = []): { shown: boolean[] } {
  const reports = { shown: [] as boolean[] };
  api.answer('gpus:samples', () => structuredClone(samples));
  // The prices per GPU-hour set on the Runs page: the fleet home shows what the GPU-hours cost at them.
  api.answer('runs:settings', () => ({ keepRuns: 200, keepMegabytes: 200, rates: structuredClone(rates) }));
  api.answer('gpus:home-shown', (request) => {
    reports.shown.push(request?.shown ?? false);
    return { shown: request?.shown ?? false };
  });
  return reports;
}

export function makeGpuSample(overrides: Partial<GpuSample> = {}): GpuSample {
  return {
    key: 'local',
    engineId: 'local',
    engineIds: ['local'],
    containerId: null,
    hostLabel: 'this computer',
    hostKind: 'local',
    at: new Date().toISOString(),
    gpus: [
      { index: 0, uuid: 'GPU-a', utilizationPct: 97, memoryUsedMiB: 40960, memoryTotalMiB: 81920 },
      { index: 1, uuid: 'GPU-b', utilizationPct: 2, memoryUsedMiB: 512, memoryTotalMiB: 81920 },
    ],
    error: null,
    ...overrides,
  };
}
