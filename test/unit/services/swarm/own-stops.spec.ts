import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EventHub } from '../../../../electron/services/events';
import { OWN_STOPS_FILE, OwnStops } from '../../../../electron/services/swarm/own-stops';
import { SwarmMonitor } from '../../../../electron/services/swarm/swarm-monitor';
import type { SwarmExit } from '../../../../electron/shared/schemas';

// Issue 31: "stopped by you" is kept across restarts. After an app restart an ended server's end is read again from
// the engine alone (Docker's 143, Slurm's CANCELLED), which without a record reads "stopped outside the app" and is
// told as news (seen in the server-truth e2e).
describe('the app\'s own stops, kept across restarts', () => {
  let dir: string;
  const made: OwnStops[] = [];
  const stops = () => {
    const s = new OwnStops(dir);
    made.push(s);
    return s;
  };

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'own-stops-'));
  });
  afterEach(async () => {
    await Promise.all(made.splice(0).map((s) => s.flushed()));
    await rm(dir, { recursive: true, force: true });
  });

  it('a stop is remembered by a later app; a failed stop is forgotten', async () => {
    const first = stops();
    first.add('local', 'c1');
    first.add('local', 'c2');
    first.drop('local', 'c2');
    await first.flushed();
    expect(JSON.parse(await readFile(join(dir, OWN_STOPS_FILE), 'utf8'))).toEqual(['local:c1']);
    const second = stops();
    expect(await second.has('local', 'c1')).toBe(true);
    expect(await second.has('local', 'c2')).toBe(false);
  });

  it('a stop recorded before the file was read is kept with the ones in it', async () => {
    await writeFile(join(dir, OWN_STOPS_FILE), JSON.stringify(['slurm-a:12']));
    const s = stops();
    s.add('local', 'c3');
    expect(await s.has('slurm-a', '12')).toBe(true);
    expect(await s.has('local', 'c3')).toBe(true);
    await s.flushed();
    expect(JSON.parse(await readFile(join(dir, OWN_STOPS_FILE), 'utf8'))).toEqual(['slurm-a:12', 'local:c3']);
  });

  it('the monitor of a restarted app reads an end the app asked for as "stopped", an end nobody asked for as it was', async () => {
    const earlier = new SwarmMonitor({ events: new EventHub(), intervalMs: 60_000, isContainerRunning: async () => true, ownStops: stops() });
    earlier.expectStop('local', 'mine');
    earlier.expectStop('local', 'refused');
    earlier.stopFailed('local', 'refused');
    earlier.dispose();
    await Promise.all(made.map((s) => s.flushed()));

    const asked: [string, boolean][] = [];
    const describeExit = async (target: { containerId: string }, requested: boolean): Promise<SwarmExit> => {
      asked.push([target.containerId, requested]);
      return { kind: requested ? 'stopped' : 'stopped-outside', code: 143, finishedAt: '2026-12-05T12:00:00Z', log: { lines: [], explains: false } };
    };
    const restarted = new SwarmMonitor({ events: new EventHub(), intervalMs: 60_000, isContainerRunning: async () => false, describeExit, ownStops: stops() });
    for (const containerId of ['mine', 'refused', 'theirs']) await restarted.recordEnded({ engineId: 'local', containerId, url: 'http://127.0.0.1:1' });
    expect(asked).toEqual([['mine', true], ['refused', false], ['theirs', false]]);
    expect(restarted.statuses().map((s) => [s.containerId, s.exit?.kind])).toEqual([['mine', 'stopped'], ['refused', 'stopped-outside'], ['theirs', 'stopped-outside']]);
    restarted.dispose();
  });

  it('a server the app stopped that runs again (docker start in a terminal) is no longer the app\'s stop', async () => {
    const record = stops();
    record.add('local', 'again');
    const monitor = new SwarmMonitor({ events: new EventHub(), intervalMs: 60_000, isContainerRunning: async () => true, ownStops: record });
    monitor.watch({ engineId: 'local', containerId: 'again', url: 'http://127.0.0.1:1' });
    expect(await record.has('local', 'again')).toBe(false);
    monitor.dispose();
  });
});
