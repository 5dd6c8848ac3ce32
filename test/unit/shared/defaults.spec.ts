import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS } from '../../../electron/services/settings/settings-service';
import {
  PORT_MAX,
  PORT_MIN,
  SHM_GB_MAX,
  SHM_GB_MIN,
  SWARM_DEFAULT_GPUS,
  SWARM_DEFAULT_IMAGE,
  SWARM_DEFAULT_NETWORK_MODE,
  SWARM_DEFAULT_PORT,
  SWARM_DEFAULT_SHM_GB,
  swarmUrlForPort,
} from '../../../electron/shared/defaults';
import { Port, SwarmDefaults, SwarmStartRequest } from '../../../electron/shared/schemas';
import { parsePort, parseShmSize } from '../../../renderer/src/lib/validation';

// Drift 3 of the house style: the start form began with GPUs off while settings and the schema
// said on, and the shared-memory range was written twice. One source now; these pin that.
describe('swarm defaults and limits (electron/shared/defaults.ts)', () => {
  it('are what the start request schema fills in', () => {
    const parsed = SwarmStartRequest.parse({ engineId: 'local', image: SWARM_DEFAULT_IMAGE });
    expect(parsed).toEqual({
      engineId: 'local',
      image: SWARM_DEFAULT_IMAGE,
      port: SWARM_DEFAULT_PORT,
      networkMode: SWARM_DEFAULT_NETWORK_MODE,
      gpus: SWARM_DEFAULT_GPUS,
      shmSizeGb: SWARM_DEFAULT_SHM_GB,
    });
    expect(SWARM_DEFAULT_GPUS).toBe(true);
  });

  it('are the settings defaults, which the schema accepts', () => {
    expect(DEFAULT_SETTINGS.swarm).toEqual({
      image: SWARM_DEFAULT_IMAGE,
      port: SWARM_DEFAULT_PORT,
      networkMode: SWARM_DEFAULT_NETWORK_MODE,
      gpus: SWARM_DEFAULT_GPUS,
      shmSizeGb: SWARM_DEFAULT_SHM_GB,
    });
    expect(SwarmDefaults.parse(DEFAULT_SETTINGS.swarm)).toEqual(DEFAULT_SETTINGS.swarm);
  });

  it('bound the port the same way in the schema and in the form check', () => {
    for (const port of [PORT_MIN - 1, PORT_MIN, PORT_MAX, PORT_MAX + 1]) {
      const inRange = port >= PORT_MIN && port <= PORT_MAX;
      expect(Port.safeParse(port).success, String(port)).toBe(inRange);
      expect(parsePort(String(port)), String(port)).toBe(inRange ? port : null);
    }
  });

  it('bound shared memory the same way in the schema and in the form check', () => {
    const request = (shmSizeGb: number) => ({ engineId: 'local', image: SWARM_DEFAULT_IMAGE, shmSizeGb });
    for (const size of [SHM_GB_MIN - 1, SHM_GB_MIN, SHM_GB_MAX, SHM_GB_MAX + 1]) {
      const inRange = size >= SHM_GB_MIN && size <= SHM_GB_MAX;
      expect(SwarmStartRequest.safeParse(request(size)).success, String(size)).toBe(inRange);
      expect(SwarmDefaults.shape.shmSizeGb.safeParse(size).success, String(size)).toBe(inRange);
      expect(parseShmSize(String(size)), String(size)).toBe(inRange ? size : null);
    }
  });

  it('give the URL training code uses for a server on this machine', () => {
    expect(swarmUrlForPort(10086)).toBe('http://127.0.0.1:10086');
  });
});
