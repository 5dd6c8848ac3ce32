/**
 * Guards the test helpers against drifting apart again: one `freePort` (test/support/helpers.ts),
 * one way to set up the app in integration and e2e specs (`startTestApp` in test/support/test-app.ts),
 * and one label on every container a test creates, the one `testbed.sh down` removes.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LABEL_APP_VERSION } from '../../../electron/services/engines/container-engine';

const root = resolve(import.meta.dirname, '../../..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(path);
    return /\.(ts|mts|mjs)$/.test(entry.name) ? [path] : [];
  });
}

/** The argument text of every `name(` call in `text`, up to its closing parenthesis. */
function callArguments(text: string, name: string): string[] {
  const found: string[] = [];
  for (let at = text.indexOf(`${name}(`); at !== -1; at = text.indexOf(`${name}(`, at + 1)) {
    let depth = 0;
    for (let i = at + name.length; i < text.length; i += 1) {
      if (text[i] === '(') depth += 1;
      else if (text[i] === ')' && --depth === 0) {
        found.push(text.slice(at + name.length + 1, i));
        break;
      }
    }
  }
  return found;
}

/** What `file` (a path relative to the repo) does that the shared helpers are there for. */
function offences(file: string, text: string): string[] {
  const found: string[] = [];
  const isSupport = file.startsWith('test/support/');
  // Also under another name (freeLoopbackPort, getFreePort): a copy is a copy.
  if (!isSupport && /(function\s+\w*[Ff]ree\w*Port\b|\b\w*[Ff]ree\w*Port\s*=\s*(async\s*)?(\(|function))/.test(text)) {
    found.push('defines its own freePort: import it from test/support/helpers.ts');
  }
  if (/^test\/(integration|e2e)\//.test(file)) {
    for (const maker of ['createAppServices(', 'startBrowserHost(', 'new EventHub(']) {
      if (text.includes(maker)) found.push(`calls ${maker.replace('(', '')} by hand: use startTestApp() from test/support/test-app.ts`);
    }
    for (const args of callArguments(text, 'createContainer')) {
      if (!args.includes('TEST_CONTAINER_LABELS')) found.push('creates a container without TEST_CONTAINER_LABELS, so no cleanup finds it');
    }
  }
  if (!isSupport && /io\.agentswarm\.test\b|0\.0\.0-e2e/.test(text)) {
    found.push('uses another test label: mark test containers with TEST_CONTAINER_LABELS');
  }
  return found;
}

describe('test hygiene', () => {
  it('recognises each offence it guards against (so a clean result below means something)', () => {
    expect(offences('test/unit/x.spec.ts', 'function freePort(): Promise<number> {}')).toHaveLength(1);
    expect(offences('test/unit/x.spec.ts', 'const freePort = () => 0;')).toHaveLength(1);
    expect(offences('test/conformance/support/x.ts', 'export async function freeLoopbackPort(): Promise<number> {')).toHaveLength(1);
    expect(offences('test/unit/x.spec.ts', 'const getFreePort = async () => 0;')).toHaveLength(1);
    expect(offences('test/unit/x.spec.ts', "import { freePort } from '../support/helpers';\nawait freePort();")).toEqual([]);
    expect(offences('test/integration/x.spec.ts', 'const s = createAppServices({ dataDir });')).toHaveLength(1);
    expect(offences('test/e2e/x.spec.ts', 'const h = await startBrowserHost({ handlers, hub, staticDir });')).toHaveLength(1);
    expect(offences('test/e2e/x.spec.ts', 'const hub = new EventHub();')).toHaveLength(1);
    // Unit specs test these pieces themselves, so they may build them.
    expect(offences('test/unit/services/x.spec.ts', 'createAppServices({ dataDir }); new EventHub();')).toEqual([]);
    expect(offences('test/integration/x.spec.ts', "docker.createContainer({ Image: i, Labels: { 'io.agentswarm.test': 'true' } })")).toHaveLength(2);
    expect(offences('test/integration/x.spec.ts', 'docker.createContainer({ Image: f(x), Labels: TEST_CONTAINER_LABELS })')).toEqual([]);
  });

  it('finds no spec that defines freePort, builds the app by hand, or labels containers its own way', () => {
    const files = [...sourceFiles(join(root, 'test')), ...sourceFiles(join(root, 'scripts'))].filter(
      (path) => !path.endsWith('test-hygiene.spec.ts'),
    );
    expect(files.length).toBeGreaterThan(20);
    const found = files.flatMap((path) => {
      const file = relative(root, path).split('\\').join('/');
      return offences(file, readFileSync(path, 'utf8')).map((offence) => `${file}: ${offence}`);
    });
    expect(found).toEqual([]);
  });

  it('the test bed removes exactly the label the tests put on their containers, on Docker and on Podman', () => {
    // The tests' app version is 0.0.0-test, or 0.0.0-test.<run> for a named run (test/support/test-app.ts): the scripts
    // list containers carrying the version label and keep those whose value starts with 0.0.0-test, nothing else.
    for (const file of ['test/testbed/testbed.sh', 'test/testbed/podman.sh']) {
      const script = readFileSync(join(root, file), 'utf8');
      const filters = [...script.matchAll(/--filter label=(\S+)/g)].map((m) => m[1]);
      expect(filters, file).toEqual([LABEL_APP_VERSION]);
      const kept = [...script.matchAll(/awk '\$2 ~ \/(\S+)\/ \{ print \$1 \}'/g)].map((m) => m[1]);
      expect(kept, file).toEqual(['^0\\.0\\.0-test']);
    }
  });
});
