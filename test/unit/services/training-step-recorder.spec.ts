import { describe, expect, it } from 'vitest';
import { StepLedger } from '../../../electron/services/dry-run/step-ledger';
import type { EpisodeTraceEvent, StepTraceEvent } from '../../../electron/services/dry-run/relay-contract';
import type { LlmCallRecord } from '../../../electron/services/dry-run/trace-store';
import { RunTracker, type Observation } from '../../../electron/services/training/run-tracker';
import { parseRun, type RunRecord } from '../../../electron/services/training/series-store';
import type { ExactStep } from '../../../electron/services/training/step-recorder';

const T0 = Date.UTC(2026, 11, 5, 9, 0, 0);
const BOOT = 'boot-1';

/** One poll: the status, the step and the pool (task id → [uuid, reward] pairs); null pool: the route was not asked. */
function poll(seconds: number, status: string, step: number | null, pool: Record<string, [string, number][]> | null = null, complete: boolean | null = null): Observation {
  const rewards = pool ? Object.fromEntries(Object.entries(pool).map(([task, list]) => [task, list.map(([, r]) => r)])) : null;
  const ids = pool ? Object.values(pool).flatMap((list) => list.map(([id]) => id)) : [];
  return { now: T0 + seconds * 1000, status, globalStep: step, rewards, completedEpisodes: pool ? ids.length : null, episodeIds: ids, batchComplete: complete };
}

function drive(tracker: RunTracker, list: Observation[]): RunRecord[] {
  return list.flatMap((o) => tracker.observe(o).records);
}

const exact = (step: number, rewards: number[], extra: Partial<ExactStep> = {}): ExactStep => ({
  bootId: BOOT,
  step,
  startedAt: T0,
  rewards,
  episodes: rewards.length,
  llmTokens: 120 * rewards.length,
  llmCalls: 2 * rewards.length,
  failures: 0,
  ...extra,
});

describe('StepRecorder (through RunTracker)', () => {
  it('records all 8 steps of a run whose every batch is the same task with rewards 0 and 1 (the reported bug: 2 points, "0 episodes" for the rest)', () => {
    const tracker = new RunTracker();
    const polls: Observation[] = [poll(0, 'ENGINE.BOOTING', null), poll(1, 'ENGINE.ROLLING', 1, {})];
    let t = 2;
    for (let step = 1; step <= 8; step++) {
      const batch: Record<string, [string, number][]> = { '0': [[`s${step}a`, 0], [`s${step}b`, 1]] };
      polls.push(poll(t, 'ENGINE.ROLLING', step, { '0': [[`s${step}a`, 0]] }, false));
      polls.push(poll(t + 1, 'ENGINE.WEIGHT_SYNCING', step, batch, true));
      // Upstream's push lag: the next step begins while the pool still shows this batch.
      polls.push(poll(t + 2, 'ENGINE.ROLLING', step + 1, batch, true));
      t += 3;
    }
    drive(tracker, polls);
    const points = tracker.series('local', 'c1').points;
    expect(points.map((p) => [p.step, p.batch, p.episodes, p.rewardMean, p.rewardMin, p.rewardMax])).toEqual(
      Array.from({ length: 8 }, (_, i) => [i + 1, 'pool', 2, 0.5, 0, 1]),
    );
    // The first step's start was seen (it left BOOTING at 1 s), so was every later one: each took 3 s.
    expect(points.map((p) => p.seconds)).toEqual([3, 3, 3, 3, 3, 3, 3, 3]);
    // A real server reports neither tokens nor failures: "not reported", not 0.
    expect(points.every((p) => p.llmTokens === null && p.failures === null)).toBe(true);
  });

  it('gives a grown old batch seen at the advance to the old step, and never the old batch to the new one', () => {
    const tracker = new RunTracker();
    drive(tracker, [
      poll(0, 'ENGINE.BOOTING', null),
      poll(1, 'ENGINE.ROLLING', 1, { a: [['e1', 1]] }, false),
      // Step 2 began; the pool (pushed late) holds step 1's whole batch.
      poll(2, 'ENGINE.ROLLING', 2, { a: [['e1', 1], ['e2', 0]] }, true),
      poll(3, 'ENGINE.ROLLING', 2, { a: [['e1', 1], ['e2', 0]] }, true),
      poll(4, 'ENGINE.ROLLING', 2, { b: [['e3', 0.25]] }, false),
      poll(5, 'ENGINE.ROLLING', 3, {}, false),
    ]);
    const points = tracker.series('local', 'c1').points;
    expect(points[0]).toMatchObject({ step: 1, batch: 'pool', episodes: 2, rewardMean: 0.5 });
    // Step 2 only ever showed part of its batch: the numbers are a lower bound, and say so.
    expect(points[1]).toMatchObject({ step: 2, batch: 'partial', episodes: 1, rewardMean: 0.25 });
  });

  it('says "unobserved" for steps the global step jumped over and for steps seen without the pool (no dashboard shown)', () => {
    const tracker = new RunTracker();
    drive(tracker, [
      poll(0, 'ENGINE.BOOTING', null),
      poll(1, 'ENGINE.ROLLING', 1, { a: [['e1', 1], ['e2', 1]] }, true),
      poll(2, 'ENGINE.ROLLING', 4, {}), // steps 1 → 4 between two polls
      poll(3, 'ENGINE.ROLLING', 4), // the dashboard closed: engine status only
      poll(4, 'ENGINE.ROLLING', 5),
    ]);
    const points = tracker.series('local', 'c1').points;
    expect(points.map((p) => [p.step, p.batch, p.episodes, p.rewardMean])).toEqual([
      [1, 'pool', 2, 1],
      [2, 'unobserved', null, null],
      [3, 'unobserved', null, null],
      [4, 'unobserved', null, null],
    ]);
    expect(points[1]?.seconds).toBeNull();
  });

  it('takes the trainer\'s exact record over any snapshot, before or after the step closed, and only from the current boot', () => {
    const tracker = new RunTracker();
    const records: RunRecord[] = [];
    records.push(...drive(tracker, [poll(0, 'ENGINE.BOOTING', null), poll(1, 'ENGINE.ROLLING', 1)]));
    // A record of an earlier boot (its step 1) is dropped when the current boot's first record comes.
    records.push(...tracker.recordExact(exact(2, [9], { bootId: 'old-boot' })));
    records.push(...tracker.recordExact(exact(1, [0, 1, 1, 0], { failures: 1 })));
    records.push(...drive(tracker, [poll(2, 'ENGINE.ROLLING', 2), poll(3, 'ENGINE.ROLLING', 3)]));
    // Step 2's record comes after the step closed (unobserved): its point is replaced.
    records.push(...tracker.recordExact(exact(2, [1, 1])));
    const points = tracker.series('local', 'c1').points;
    expect(points.map((p) => [p.step, p.batch, p.episodes, p.rewardMean, p.llmTokens, p.llmCalls, p.failures])).toEqual([
      [1, 'exact', 4, 0.5, 480, 8, 1],
      [2, 'exact', 2, 1, 240, 4, 0],
    ]);
    // The run file says the same when read back (the later point of step 2 replaces the first).
    const back = parseRun(records.map((r) => JSON.stringify(r)).join('\n'));
    expect(back?.points.map((p) => [p.step, p.batch, p.episodes])).toEqual([
      [1, 'exact', 4],
      [2, 'exact', 2],
    ]);
  });

  it('keeps an exact record that arrives before the run is seen to begin (a boot faster than the poll)', () => {
    const tracker = new RunTracker();
    expect(tracker.recordExact(exact(1, [1]))).toEqual([]);
    drive(tracker, [poll(0, 'ENGINE.ROLLING', 1), poll(1, 'ENGINE.ROLLING', 2)]);
    expect(tracker.series('local', 'c1').points[0]).toMatchObject({ step: 1, batch: 'exact', episodes: 1 });
  });

  it('keeps the steps a trainer faster than the poll completed before the run was first seen (issue 32: no step dropped)', () => {
    const tracker = new RunTracker();
    const records: RunRecord[] = [];
    // Steps 1 and 2 were counted (and step 4's record came early) before any poll saw the engine training.
    records.push(...tracker.recordExact(exact(1, [0, 1])));
    records.push(...tracker.recordExact(exact(2, [1, 1])));
    records.push(...drive(tracker, [poll(0, 'ENGINE.ROLLING', 3)]));
    // Step 3's record arrives after the first poll, before its step closes; then the run goes on.
    records.push(...tracker.recordExact(exact(3, [0, 0])));
    records.push(...drive(tracker, [poll(1, 'ENGINE.ROLLING', 4), poll(2, 'ENGINE.ROLLING', 5)]));
    const expected = [
      [1, 'exact', 2, 0.5],
      [2, 'exact', 2, 1],
      [3, 'exact', 2, 0],
      [4, 'unobserved', null, null],
    ];
    expect(tracker.series('local', 'c1').points.map((p) => [p.step, p.batch, p.episodes, p.rewardMean])).toEqual(expected);
    expect(parseRun(records.map((r) => JSON.stringify(r)).join('\n'))?.points.map((p) => [p.step, p.batch, p.episodes, p.rewardMean])).toEqual(expected);
  });

  it('puts a step whose record comes after the run was first seen at a later step in its place, also in the run file', () => {
    const tracker = new RunTracker();
    const records: RunRecord[] = [];
    records.push(...drive(tracker, [poll(0, 'ENGINE.ROLLING', 3), poll(1, 'ENGINE.ROLLING', 4)]));
    // The dry run's records of steps 1 and 2 arrive late (its step events raced the first poll).
    records.push(...tracker.recordExact(exact(2, [1, 1])));
    records.push(...tracker.recordExact(exact(1, [0, 1])));
    const expected = [
      [1, 'exact', 2],
      [2, 'exact', 2],
      [3, 'unobserved', null],
    ];
    expect(tracker.series('local', 'c1').points.map((p) => [p.step, p.batch, p.episodes])).toEqual(expected);
    expect(parseRun(records.map((r) => JSON.stringify(r)).join('\n'))?.points.map((p) => [p.step, p.batch, p.episodes])).toEqual(expected);
  });

  it('reads a run stored before points said how they were learnt: an empty step is "unobserved"', () => {
    const text = [
      '{"k":"run","runId":"r","t":1}',
      '{"k":"p","step":1,"at":"2026-12-01T00:00:00.000Z","rewardMean":0.5,"rewardStd":0.5,"rewardMin":0,"rewardMax":1,"episodes":2,"secondsInStatus":{}}',
      '{"k":"p","step":2,"at":"2026-12-01T00:01:00.000Z","rewardMean":null,"rewardStd":null,"rewardMin":null,"rewardMax":null,"episodes":0,"secondsInStatus":{}}',
    ].join('\n');
    expect(parseRun(text)?.points.map((p) => [p.step, p.batch, p.episodes, p.seconds, p.llmTokens])).toEqual([
      [1, 'pool', 2, null, null],
      [2, 'unobserved', null, null, null],
    ]);
  });
});

describe('StepLedger (dry run)', () => {
  it('counts each step\'s LLM calls, tokens and failed episodes and hands the batch on exactly', () => {
    const seen = { episodes: [] as EpisodeTraceEvent[], steps: [] as StepTraceEvent[], calls: [] as LlmCallRecord[] };
    const ledger = new StepLedger({
      episode: (e) => seen.episodes.push(e),
      step: (e) => seen.steps.push(e),
      stall: () => undefined,
      call: (c) => seen.calls.push(c),
    });
    const out: ExactStep[] = [];
    ledger.onStep((s) => out.push(s));
    const call = (step: number, prompt: number | null, completion: number | null) =>
      ({ callId: 'c', episodeUuid: 'e', taskId: 't', clientUuid: 'u', step, route: 'chat', stream: false, startedAt: 0, latencyMs: 1, status: 200, request: {}, response: {}, promptTokens: prompt, completionTokens: completion, error: null }) as LlmCallRecord;
    const ep = (kind: EpisodeTraceEvent['kind'], step: number, extra: Partial<EpisodeTraceEvent> = {}): EpisodeTraceEvent => ({ kind, episodeUuid: 'e', taskId: 't', clientUuid: 'u', step, at: 0, ...extra });
    ledger.call(call(1, 100, 20));
    ledger.call(call(1, 50, null));
    ledger.call(call(2, 7, 3));
    ledger.episode(ep('aborted', 1));
    ledger.episode(ep('aborted', 1, { debugReward: 1 })); // a debug episode's deliberate abort
    ledger.episode(ep('reverted', 1)); // the janitor: claimed too long
    ledger.episode(ep('ended', 1, { reward: null }));
    ledger.episode(ep('ended', 1, { reward: 1 }));
    ledger.episode(ep('discarded', 1)); // unclaimed episodes dropped at the step's end
    ledger.collected({ bootId: BOOT, step: 1, startedAt: T0, rewards: [1, 0.5], episodes: 2 });
    expect(out).toEqual([{ bootId: BOOT, step: 1, startedAt: T0, rewards: [1, 0.5], episodes: 2, llmTokens: 170, llmCalls: 2, failures: 3 }]);
    // Everything still reached the trace store.
    expect(seen.calls).toHaveLength(3);
    expect(seen.episodes).toHaveLength(6);
  });
});
