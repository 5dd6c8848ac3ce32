import { beforeEach, describe, expect, it } from 'vitest';
import { JobLogState, openJobLog } from '../../renderer/src/lib/state/job-log.svelte';
import { FakeApi } from './fake-api';
import { JobsFake } from './fakes/jobs';
import { makeJobView } from './fakes/wizard';

// JobLogState with small numbers (keep 50 lines, read 20 at a time) against the fake API (TEST DOUBLE).
let api: FakeApi;
let fake: JobsFake;

beforeEach(() => {
  api = new FakeApi();
  fake = new JobsFake(api, [makeJobView({ id: 'job-a' })]);
});

const settle = async (state: JobLogState, last: number): Promise<void> => {
  for (let i = 0; i < 200 && state.lines.at(-1)?.n !== last; i += 1) await new Promise((resolve) => setTimeout(resolve, 1));
  expect(state.lines.at(-1)?.n).toBe(last);
};

describe('JobLogState', () => {
  it('reads in windows from the cursor and keeps only the newest lines, counting the earlier ones', async () => {
    fake.grow('job-a', 30, false);
    const state = new JobLogState(api, 'job-a', 50, 20);
    const stop = state.start();
    await settle(state, 29);
    expect(fake.logRequests().map((r) => [r.from, r.limit])).toEqual([[0, 20], [20, 20]]);
    expect(state.earlier).toBe(0);

    fake.grow('job-a', 75);
    await settle(state, 74);
    expect(state.lines).toHaveLength(50);
    expect(state.lines[0]!.n).toBe(25);
    expect(state.earlier).toBe(25);
    expect(state.total).toBe(75);
    stop();
  });

  it('skips to the newest lines when it is far behind, instead of reading everything in between', async () => {
    fake.grow('job-a', 1000, false);
    const state = new JobLogState(api, 'job-a', 50, 20);
    const stop = state.start();
    await settle(state, 999);
    expect(fake.logRequests().map((r) => r.from)).toEqual([0, 950, 970, 990]);
    expect(state.lines.map((l) => l.n)).toEqual(Array.from({ length: 50 }, (_, i) => 950 + i));
    stop();
  });

  it('counts the lines that arrived since the user stopped following', async () => {
    fake.grow('job-a', 10, false);
    const state = new JobLogState(api, 'job-a', 50, 20);
    const stop = state.start();
    await settle(state, 9);
    state.setFollowing(false);
    fake.grow('job-a', 16);
    await settle(state, 15);
    expect(state.unseen).toBe(6);
    state.setFollowing(true);
    expect(state.unseen).toBe(0);
    stop();
  });

  it('drops an answer that comes after the view closed, and stops listening', async () => {
    fake.grow('job-a', 10, false);
    const release = api.hold('jobs:log');
    const state = new JobLogState(api, 'job-a', 50, 20);
    const stop = state.start();
    expect(api.listenerCount('jobs:log-appended')).toBe(1);
    stop();
    expect(api.listenerCount('jobs:log-appended')).toBe(0);
    release();
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(state.lines).toEqual([]);
    expect(state.loaded).toBe(false);
  });
});

describe('openJobLog', () => {
  it('opens the file, or on LOG_UNAVAILABLE answers the path (from jobs:get when the caller has no view)', async () => {
    expect(await openJobLog(api, 'job-a')).toEqual({ kind: 'opened', path: '/data/jobs/job-a.log' });
    fake.browserHost = true;
    const outcome = await openJobLog(api, 'job-a');
    expect(outcome).toMatchObject({ kind: 'unavailable', path: '/data/jobs/job-a.log' });
    expect(api.requestsOn('jobs:get')).toEqual([{ jobId: 'job-a' }]);
    expect(await openJobLog(api, 'job-a', '/known/path.log')).toMatchObject({ kind: 'unavailable', path: '/known/path.log' });
    expect(api.requestsOn('jobs:get')).toHaveLength(1);
    api.failNext('jobs:open-log', { code: 'JOB_NOT_FOUND', message: 'No job job-a.' });
    expect(await openJobLog(api, 'job-a')).toEqual({ kind: 'failed', error: { code: 'JOB_NOT_FOUND', message: 'No job job-a.' } });
  });
});
