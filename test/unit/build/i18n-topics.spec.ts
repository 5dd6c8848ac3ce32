/**
 * The strings load by topic (renderer/src/lib/i18n/topics.ts): the shell's before the first paint, a page's
 * or a lazily loaded part's with its code (lib/pages.ts, lib/lazy-parts.svelte.ts), and the page renders only
 * once they are here. This file checks that each page's and part's topic list covers every key its code can
 * name, so `t()` never meets a key whose topic did not come: it walks each one's static imports (not into
 * other pages or parts: they load their own), collects the string literals that are keys and the template
 * literals' heads (`slurm.reason.${r}` names every `slurm.reason.` key; so does a literal 'slurm.reason' that
 * code joins to a key), and maps each key to its topic file.
 * It also keeps the lists tight (a listed topic the code never names is bytes fetched for nothing). The error
 * codes' words and the doctor's findings are topics fetched on first use (FIRST_USE_TOPICS), so any code may
 * name them; each one's keys must be exactly those under its prefixes (en-errors.ts, en-doctor-findings.ts).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIRST_USE_TOPICS } from '../../../renderer/src/lib/i18n/topics';

const root = resolve(import.meta.dirname, '../../..');
const src = resolve(root, 'renderer/src');
const i18nDir = resolve(src, 'lib/i18n');

/** Each topic file's keys (en-<topic>.ts; zh-CN's are the same by type and by test/renderer/i18n.spec.ts). */
async function topicFiles(): Promise<Map<string, string[]>> {
  const topics = new Map<string, string[]>();
  for (const file of readdirSync(i18nDir).filter((f) => /^en-[\w-]+\.ts$/.test(f) && f !== 'en-shell.ts')) {
    const module = (await import(resolve(i18nDir, file))) as Record<string, Record<string, string>>;
    const exported = Object.values(module);
    expect(exported, `${file} exports one dictionary`).toHaveLength(1);
    topics.set(file.slice('en-'.length, -'.ts'.length), Object.keys(exported[0]!));
  }
  return topics;
}

/** The topic files en-shell.ts gathers into the `shell` topic. */
function shellParts(): string[] {
  const text = readFileSync(resolve(i18nDir, 'en-shell.ts'), 'utf8');
  return [...text.matchAll(/from '\.\/en-([\w-]+)'/g)].map((m) => m[1]!);
}

/** The rows of a table: each `import('<path>')` with the topic list written in the same row. */
function tableRows(file: string, rowPattern: RegExp): { name: string; path: string; topics: string[] }[] {
  const text = readFileSync(resolve(src, file), 'utf8');
  return [...text.matchAll(rowPattern)].map((m) => ({
    name: m.groups!.name!,
    path: resolve(dirname(resolve(src, file)), m.groups!.path!),
    topics: [...(m.groups!.topics ?? '').matchAll(/'([\w-]+)'/g)].map((t) => t[1]!),
  }));
}

const pageRows = () =>
  tableRows('lib/pages.ts', /\{ id: '(?<name>[\w-]+)', label: '[\w.]+', topics: \[(?<topics>[^\]]*)\], load: \(\) => import\('(?<path>[^']+)'\) \}/g);
const partRows = () =>
  tableRows('lib/lazy-parts.svelte.ts', /export const (?<name>\w+) = new LazyPart\(\(\) => import\('(?<path>[^']+)'\)(?:, \[(?<topics>[^\]]*)\])?\);/g);

function resolveImport(from: string, spec: string): string | null {
  if (!spec.startsWith('.')) return null;
  const base = resolve(dirname(from), spec);
  for (const candidate of [base, `${base}.ts`, `${base}.svelte`, `${base}/index.ts`]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  throw new Error(`${relative(root, from)} imports ${spec}, which resolves to no file`);
}

/** The renderer files `entry` runs: static imports and dynamic ones, but not a dynamic one of `stops` (pages and parts check their own). */
function moduleGraph(entry: string, stops: Set<string>): Set<string> {
  const seen = new Set<string>();
  const stack = [entry];
  while (stack.length > 0) {
    const file = stack.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    const specs = [
      // import … from / export … from, unless the whole statement is type-only.
      ...[...text.matchAll(/\b(?:import|export)\s+(type\s+)?[^'";]*?\s+from\s+['"]([^'"]+)['"]/g)].filter((m) => !m[1]).map((m) => ({ spec: m[2]!, dynamic: false })),
      ...[...text.matchAll(/\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g)].map((m) => ({ spec: m[1]!, dynamic: true })),
      ...[...text.matchAll(/\bimport\s+['"]([^'"]+)['"]/g)].map((m) => ({ spec: m[1]!, dynamic: false })),
    ];
    for (const { spec, dynamic } of specs) {
      const target = resolveImport(file, spec);
      // Only renderer code names keys; lib/i18n itself names every key (the dictionaries) and checks its own.
      if (!target || !target.startsWith(src) || target.startsWith(i18nDir) || target.endsWith('.css')) continue;
      // A page or part fetched by its table brings its own topics; imported statically, it is part of this code.
      if (dynamic && stops.has(target)) continue;
      stack.push(target);
    }
  }
  return seen;
}

/** The keys a file can name: string literals that are keys, and every key under a template literal's head. */
function keysNamed(file: string, keyToTopic: Map<string, string>): Set<string> {
  const named = new Set<string>();
  const text = readFileSync(file, 'utf8');
  for (const m of text.matchAll(/['"`]([a-zA-Z][\w.-]*)(['"`]|\$\{)/g)) {
    const literal = m[1]!;
    // A template's head names the keys under it; so does a dotted literal that is the head of keys
    // (`${prefix}.${say.key}` with prefix 'doctor.say': doctor-view.ts).
    const head = m[2] === '${' ? literal : literal.includes('.') ? `${literal}.` : null;
    if (keyToTopic.has(literal) && m[2] !== '${') named.add(literal);
    if (head !== null) for (const key of keyToTopic.keys()) if (key.startsWith(head)) named.add(key);
  }
  return named;
}

async function setUp() {
  const topics = await topicFiles();
  const keyToTopic = new Map<string, string>();
  const shell = new Set(shellParts());
  // The first-use topics load when one of their keys is worded (locale.svelte.ts), so any code may name them, like the shell's.
  const firstUse = new Set<string>(Object.keys(FIRST_USE_TOPICS));
  for (const [topic, keys] of topics) for (const key of keys) keyToTopic.set(key, shell.has(topic) || firstUse.has(topic) ? 'shell' : topic);
  const pages = pageRows();
  const parts = partRows();
  const stops = new Set([...pages, ...parts].map((row) => row.path));
  /** The topics `entry`'s code needs beyond the shell, with one key of each as the example in a failure. */
  const needs = (entry: string): Map<string, string> => {
    const needed = new Map<string, string>();
    for (const file of moduleGraph(entry, stops)) {
      for (const key of keysNamed(file, keyToTopic)) {
        const topic = keyToTopic.get(key)!;
        if (topic !== 'shell' && !needed.has(topic)) needed.set(topic, `${key} (${relative(src, file)})`);
      }
    }
    return needed;
  };
  return { topics, keyToTopic, shell, pages, parts, needs };
}

describe('string topics', () => {
  it('every key lives in one topic file, and topics.ts loads each topic in both languages', async () => {
    const { topics, shell } = await setUp();
    const seen = new Map<string, string>();
    for (const [topic, keys] of topics) {
      for (const key of keys) {
        expect(seen.get(key), `${key} is in en-${topic}.ts and en-${seen.get(key)}.ts`).toBeUndefined();
        seen.set(key, topic);
      }
    }
    expect(shell).toContain('common');
    // `t()` knows a first-use topic's word by its prefix and fetches that topic for it: every such key lives there, and only those.
    for (const [topic, prefixes] of Object.entries(FIRST_USE_TOPICS)) {
      const words = [...seen.keys()].filter((key) => prefixes.some((prefix) => key.startsWith(prefix)));
      expect(words.filter((key) => seen.get(key) !== topic), `${topic} words outside en-${topic}.ts`).toEqual([]);
      expect(topics.get(topic)!.filter((key) => !words.includes(key)), `keys in en-${topic}.ts under none of its prefixes`).toEqual([]);
      expect(words.length, topic).toBeGreaterThan(100);
    }
    const table = readFileSync(resolve(i18nDir, 'topics.ts'), 'utf8');
    for (const topic of [...topics.keys()].filter((t) => !shell.has(t)).concat('shell')) {
      expect(table, `topics.ts loads en-${topic}.ts`).toContain(`import('./en-${topic}')`);
      expect(table, `topics.ts loads zh-CN-${topic}.ts`).toContain(`import('./zh-CN-${topic}')`);
    }
    // The shell's parts load only inside the shell's chunk (a second loader would fetch them twice).
    for (const part of shell) expect(table).not.toContain(`import('./en-${part}')`);
  });

  it('finds every page and every lazily loaded part in their tables', async () => {
    const { pages, parts } = await setUp();
    expect(pages.map((p) => p.name).sort()).toEqual(['fleet', 'jobs', 'runs', 'servers', 'settings', 'wizard']);
    const partDeclarations = readFileSync(resolve(src, 'lib/lazy-parts.svelte.ts'), 'utf8').match(/new LazyPart\(/g) ?? [];
    // The class's own `new LazyPart(` in its doc comment is not a row.
    expect(parts.length).toBeGreaterThan(0);
    expect(parts.length).toBe(partDeclarations.length);
  });

  it("the shell's code (App.svelte and what it imports) names only keys of the shell topic", async () => {
    const { needs } = await setUp();
    expect(Object.fromEntries(needs(resolve(src, 'main.ts')))).toEqual({});
  });

  it("each page's and part's topics are exactly the ones its code names (besides the shell's)", async () => {
    const { pages, parts, needs } = await setUp();
    // All rows at once, so one run names every list to fix.
    const missing: Record<string, string[]> = {};
    const unused: Record<string, string[]> = {};
    for (const row of [...pages, ...parts]) {
      const needed = needs(row.path);
      const notLoaded = [...needed].filter(([topic]) => !row.topics.includes(topic)).map(([topic, example]) => `${topic}: ${example}`);
      if (notLoaded.length > 0) missing[row.name] = notLoaded;
      const notNamed = row.topics.filter((topic) => !needed.has(topic));
      if (notNamed.length > 0) unused[row.name] = notNamed;
    }
    expect(missing, 'pages and parts that render keys of topics they do not load').toEqual({});
    expect(unused, 'pages and parts that load topics their code never names').toEqual({});
  });
});
