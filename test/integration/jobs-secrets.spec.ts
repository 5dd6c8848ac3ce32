import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { groupMembers } from '../../electron/services/jobs/process-tree';
import { VAULT_FILE } from '../../electron/services/secrets/secret-vault';
import { poll } from '../support/helpers';
import { startTestApp, type TestApp } from '../support/test-app';
import { JobEvents, makeProject, startRequest } from './support/jobs-fixtures';

/**
 * The LLM key of a job reaches its script ONLY as env: a canary key in the app's real vault, a run
 * with a child process, and a search of every place the key must not be (argv of the whole process
 * tree, job views, jobs:changed and jobs:log-appended events, jobs:log, the run's log file, the
 * history, the app log).
 */
const CANARY = `sk-jobcanary-${Date.now().toString(36)}-Hq4Vn8Lp2Xw6Tz9K`;

/** Starts a child (so the tree has two processes), proves it has the key by its hash, leaks it once on stderr, then waits. */
const SCRIPT = `
import hashlib, json, os, subprocess, sys, time
go = sys.argv[1]
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
key = os.environ["OPENAI_API_KEY"]
print("key sha256", hashlib.sha256(key.encode()).hexdigest(), flush=True)
print("oops, a careless debug print:", key, file=sys.stderr, flush=True)
print("ready", flush=True)
while not os.path.exists(go):
    time.sleep(0.05)
child.kill()
child.wait()
print("AGENTSWARM_RESULT " + json.dumps({"reward": 1.0, "key_sha256": hashlib.sha256(key.encode()).hexdigest()}))
`;

let app: TestApp | null = null;
let events: JobEvents | null = null;

afterEach(async () => {
  events?.unsubscribe();
  await app?.dispose();
  app = null;
  events = null;
});

describe('an LLM key reaches a job only through its env', () => {
  it('argv of every process of the tree, views, events, logs and history never hold it; the script has it', async () => {
    app = await startTestApp();
    events = new JobEvents(app.hub);
    const seen: string[] = [];
    const unsubscribe = app.hub.subscribe((channel, payload) => seen.push(`${channel} ${JSON.stringify(payload)}`));
    await app.handlers['vault:setup']({ backend: 'passphrase', passphrase: 'job canary passphrase 1' });
    const secret = await app.handlers['secrets:save']({ name: 'Job canary LLM', kind: 'llm', value: CANARY, llm: { baseUrl: 'http://127.0.0.1:9/v1', model: 'canary-model' } });
    const project = await makeProject({ 'ep.py': SCRIPT });
    const go = join(project, 'go');

    const job = await app.handlers['jobs:start'](startRequest({ cwd: project, script: 'ep.py', args: [go], llmSecretId: secret.id }));
    expect(job.llmSecretId).toBe(secret.id);
    await poll('ready', 10_000, async () => ((await app!.handlers['jobs:log']({ jobId: job.id, from: 0, limit: 100 })).lines.some((l) => l.text === 'ready') ? true : undefined));

    // While it runs: the tree (main + child) has the key in its env, never on a command line.
    const tree = groupMembers(job.pid!)!;
    expect(tree.length).toBeGreaterThanOrEqual(2);
    for (const pid of tree) expect(readFileSync(`/proc/${pid}/cmdline`, 'latin1'), `cmdline of ${pid}`).not.toContain(CANARY);
    expect(readFileSync(`/proc/${job.pid}/environ`, 'latin1').split('\0')).toEqual(expect.arrayContaining([`OPENAI_API_KEY=${CANARY}`, `API_KEY=${CANARY}`]));
    const whileRunning = JSON.stringify([await app.handlers['jobs:get']({ jobId: job.id }), await app.handlers['jobs:list']({})]);

    await writeFile(go, '');
    const ended = await events.ended(job.id);
    const hash = createHash('sha256').update(CANARY).digest('hex');
    expect(ended).toMatchObject({ state: 'succeeded', result: { raw: { key_sha256: hash } } });
    const log = await app.handlers['jobs:log']({ jobId: job.id, from: 0, limit: 500 });
    expect(log.lines.some((l) => l.text === `key sha256 ${hash}`)).toBe(true);
    // The careless print reached the log redacted.
    const oops = log.lines.find((l) => l.text.startsWith('oops'));
    expect(oops).toMatchObject({ stream: 'err' });
    expect(oops?.text).not.toContain(CANARY);

    const hits: string[] = [];
    const check = (where: string, text: string) => {
      if (text.includes(CANARY)) hits.push(where);
    };
    check('views while running', whileRunning);
    check('final view', JSON.stringify([ended, await app.handlers['jobs:list']({})]));
    check('jobs:log', JSON.stringify(log));
    for (const event of seen) check(event.slice(0, 60), event);
    for (const file of filesUnder(app.dataDir)) if (!file.endsWith(`/${VAULT_FILE}`)) check(file, readFileSync(file, 'latin1'));
    unsubscribe();
    expect(seen.some((e) => e.startsWith('jobs:changed'))).toBe(true);
    expect(seen.some((e) => e.startsWith('jobs:log-appended'))).toBe(true);
    expect(filesUnder(app.dataDir).map((f) => f.slice(app!.dataDir.length))).toEqual(expect.arrayContaining(['/app.log', '/jobs/history.json', `/jobs/${job.id}.log`]));
    expect(hits).toEqual([]);
  });
});

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    const stat = statSync(path);
    return stat.isDirectory() ? filesUnder(path) : stat.isFile() ? [path] : [];
  });
}
