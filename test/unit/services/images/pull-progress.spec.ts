import { describe, expect, it } from 'vitest';
import type { PullEvent } from '../../../../electron/services/engines/container-engine';
import { ETA_WINDOW_MS, PullProgress } from '../../../../electron/services/images/pull-progress';

/**
 * Recorded from Docker 20.10 pulling a test image (the fake swarm's base layer already present, then
 * a 157 B, a 3 kB and a 30 MB layer) from the test bed's registry; only the `progress` bar text dropped.
 */
const RECORDED: PullEvent[] = [
  {"status": "Pulling from agentswarm-test/pull-probe", "id": "1"},
  {"status": "Already exists", "progressDetail": {}, "id": "a7468bc3b1c4"},
  {"status": "Pulling fs layer", "progressDetail": {}, "id": "99f7092b7137"},
  {"status": "Pulling fs layer", "progressDetail": {}, "id": "23b16151b85e"},
  {"status": "Pulling fs layer", "progressDetail": {}, "id": "2798372a3a1b"},
  {"status": "Downloading", "progressDetail": {"current": 157, "total": 157}, "id": "99f7092b7137"},
  {"status": "Verifying Checksum", "progressDetail": {}, "id": "99f7092b7137"},
  {"status": "Download complete", "progressDetail": {}, "id": "99f7092b7137"},
  {"status": "Extracting", "progressDetail": {"current": 157, "total": 157}, "id": "99f7092b7137"},
  {"status": "Extracting", "progressDetail": {"current": 157, "total": 157}, "id": "99f7092b7137"},
  {"status": "Downloading", "progressDetail": {"current": 3245, "total": 3245}, "id": "2798372a3a1b"},
  {"status": "Verifying Checksum", "progressDetail": {}, "id": "2798372a3a1b"},
  {"status": "Download complete", "progressDetail": {}, "id": "2798372a3a1b"},
  {"status": "Downloading", "progressDetail": {"current": 330752, "total": 30009422}, "id": "23b16151b85e"},
  {"status": "Downloading", "progressDetail": {"current": 9809920, "total": 30009422}, "id": "23b16151b85e"},
  {"status": "Downloading", "progressDetail": {"current": 12664832, "total": 30009422}, "id": "23b16151b85e"},
  {"status": "Downloading", "progressDetail": {"current": 15505408, "total": 30009422}, "id": "23b16151b85e"},
  {"status": "Downloading", "progressDetail": {"current": 22790144, "total": 30009422}, "id": "23b16151b85e"},
  {"status": "Verifying Checksum", "progressDetail": {}, "id": "23b16151b85e"},
  {"status": "Download complete", "progressDetail": {}, "id": "23b16151b85e"},
  {"status": "Pull complete", "progressDetail": {}, "id": "99f7092b7137"},
  {"status": "Extracting", "progressDetail": {"current": 327680, "total": 30009422}, "id": "23b16151b85e"},
  {"status": "Extracting", "progressDetail": {"current": 10485760, "total": 30009422}, "id": "23b16151b85e"},
  {"status": "Extracting", "progressDetail": {"current": 21626880, "total": 30009422}, "id": "23b16151b85e"},
  {"status": "Extracting", "progressDetail": {"current": 30009422, "total": 30009422}, "id": "23b16151b85e"},
  {"status": "Pull complete", "progressDetail": {}, "id": "23b16151b85e"},
  {"status": "Extracting", "progressDetail": {"current": 3245, "total": 3245}, "id": "2798372a3a1b"},
  {"status": "Extracting", "progressDetail": {"current": 3245, "total": 3245}, "id": "2798372a3a1b"},
  {"status": "Pull complete", "progressDetail": {}, "id": "2798372a3a1b"},
  {"status": "Digest: sha256:1efc9ed90869116dd3e36188e16a56d381a002b0fe42b0cdaf822306b6cb10e2"},
  {"status": "Status: Downloaded newer image for 127.0.0.1:5000/agentswarm-test/pull-probe:1"},
];

function feed(progress: PullProgress, events: PullEvent[]): ReturnType<PullProgress['snapshot']>[] {
  return events.map((event) => {
    progress.apply(event);
    return progress.snapshot();
  });
}

describe('PullProgress (aggregates Docker pull messages)', () => {
  it('a recorded pull: percent only rises and reaches 100, layers done = total, bytes add up', () => {
    const snapshots = feed(new PullProgress(), RECORDED);
    const percents = snapshots.map((s) => s.percent).filter((p): p is number => p !== null);
    for (let i = 1; i < percents.length; i += 1) expect(percents[i]).toBeGreaterThanOrEqual(percents[i - 1]!);
    const last = snapshots[snapshots.length - 1]!;
    expect(last).toMatchObject({ percent: 100, layersDone: 4, layersTotal: 4, bytesDone: 157 + 3245 + 30009422, bytesTotal: 157 + 3245 + 30009422 });
    // "Pulling from …" (its id is the tag "1"), "Digest: …" and "Status: …" are not layers.
    expect(snapshots[0]).toMatchObject({ phase: 'resolving', layersTotal: 0, percent: null });
  });

  it('phases: resolving, downloading while any layer downloads, extracting once all are downloaded', () => {
    const progress = new PullProgress();
    const phases = feed(progress, RECORDED).map((s) => s.phase);
    const order = phases.filter((phase, i) => phase !== phases[i - 1]);
    expect(order).toEqual(['resolving', 'downloading', 'extracting']);
    // The big layer's "Verifying Checksum" (its bytes are all in) is the moment every layer is downloaded.
    const firstExtracting = phases.indexOf('extracting');
    expect(RECORDED[firstExtracting]).toMatchObject({ status: 'Verifying Checksum', id: '23b16151b85e' });
  });

  it('download and extraction each count for half of a layer', () => {
    const progress = new PullProgress();
    progress.apply({ id: 'a', status: 'Pulling fs layer' });
    progress.apply({ id: 'a', status: 'Downloading', progressDetail: { current: 500, total: 1000 } });
    expect(progress.snapshot()).toMatchObject({ percent: 25, bytesDone: 500, bytesTotal: 1000, phase: 'downloading' });
    progress.apply({ id: 'a', status: 'Download complete' });
    expect(progress.snapshot().percent).toBe(50);
    progress.apply({ id: 'a', status: 'Extracting', progressDetail: { current: 500, total: 1000 } });
    expect(progress.snapshot()).toMatchObject({ percent: 75, phase: 'extracting', layersDone: 0 });
    progress.apply({ id: 'a', status: 'Pull complete' });
    expect(progress.snapshot()).toMatchObject({ percent: 100, layersDone: 1, layersTotal: 1 });
  });

  it('"Already exists" layers are done and weigh nothing: they never make the bar jump ahead', () => {
    const progress = new PullProgress();
    feed(progress, [
      { id: '1', status: 'Pulling from library/x' },
      { id: 'a', status: 'Already exists' },
      { id: 'b', status: 'Already exists' },
    ]);
    // Docker announces existing layers first: more may follow, so no percent yet (the manager says 100 when it ends).
    expect(progress.snapshot()).toMatchObject({ percent: null, layersDone: 2, layersTotal: 2, bytesTotal: 0, phase: 'resolving' });
    progress.apply({ id: 'c', status: 'Pulling fs layer' });
    progress.apply({ id: 'c', status: 'Downloading', progressDetail: { current: 100, total: 1000 } });
    expect(progress.snapshot()).toMatchObject({ percent: 5, layersDone: 2, layersTotal: 3, phase: 'downloading' });
  });

  it('a layer whose size is unknown keeps the bar below 100 until it completes, then sizes arriving late never move it back', () => {
    const progress = new PullProgress();
    feed(progress, [
      { id: 'a', status: 'Pulling fs layer' },
      { id: 'b', status: 'Pulling fs layer' },
      { id: 'a', status: 'Downloading', progressDetail: { current: 1000, total: 1000 } },
      { id: 'a', status: 'Download complete' },
      { id: 'a', status: 'Extracting', progressDetail: { current: 1000, total: 1000 } },
      { id: 'a', status: 'Pull complete' },
      // b: no size yet (Docker sends total -1 or none for some blobs)
      { id: 'b', status: 'Downloading', progressDetail: { current: 10, total: -1 } },
    ]);
    const before = progress.snapshot();
    expect(before.percent).toBe(99);
    expect(before.etaSeconds).toBeNull();
    progress.apply({ id: 'b', status: 'Extracting', progressDetail: { current: 100, total: 100_000 } });
    // Known bytes now say ~2 %, but the bar already showed 99: it stays.
    expect(progress.snapshot().percent).toBe(99);
    progress.apply({ id: 'b', status: 'Pull complete' });
    expect(progress.snapshot()).toMatchObject({ percent: 100, layersDone: 2 });
  });

  it('ETA from the rate over the recent window; none while the history is short or the pull is stalled', () => {
    let now = 0;
    const progress = new PullProgress(() => now);
    progress.apply({ id: 'a', status: 'Downloading', progressDetail: { current: 0, total: 10_000_000 } });
    expect(progress.snapshot().etaSeconds).toBeNull();
    // 1 MB/s of download = 0.5 MB/s of "units" (download is half the layer).
    for (let s = 1; s <= 4; s += 1) {
      now = s * 1000;
      progress.apply({ id: 'a', status: 'Downloading', progressDetail: { current: s * 1_000_000, total: 10_000_000 } });
    }
    // 10 MB of units left minus 2 MB done, at 0.5 MB/s → 16 s.
    expect(progress.snapshot().etaSeconds).toBe(16);
    // The download slows to 0.5 MB/s; after a window only the new rate counts (0.25 MB/s of units).
    for (let s = 5; s <= 5 + ETA_WINDOW_MS / 1000; s += 1) {
      now = s * 1000;
      progress.apply({ id: 'a', status: 'Downloading', progressDetail: { current: 4_000_000 + (s - 4) * 500_000, total: 10_000_000 } });
    }
    // 9.5 MB downloaded = 4.75 MB of units; 5.25 MB left at 0.25 MB/s → 21 s.
    expect(progress.snapshot().etaSeconds).toBe(21);
    now += ETA_WINDOW_MS + 1;
    expect(progress.snapshot().etaSeconds).toBeNull();
  });

  it('reports a phase change from apply() so the caller can send it at once', () => {
    const progress = new PullProgress();
    expect(progress.apply({ id: '1', status: 'Pulling from x' })).toBe(false);
    expect(progress.apply({ id: 'a', status: 'Pulling fs layer' })).toBe(false);
    expect(progress.apply({ id: 'a', status: 'Downloading', progressDetail: { current: 1, total: 2 } })).toBe(true);
    expect(progress.apply({ id: 'a', status: 'Downloading', progressDetail: { current: 2, total: 2 } })).toBe(false);
    expect(progress.apply({ id: 'a', status: 'Download complete' })).toBe(true);
  });
});
