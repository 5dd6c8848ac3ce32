// Merges the latest-mac.yml files of the macOS x64 and arm64 release runners into one, as
// electron-builder writes it when it builds both architectures on one machine: every file of
// both, the x64 one first (electron-updater picks the arm64 zip on Apple silicon by its name).
//
//   node scripts/merge-mac-update-info.mjs <out.yml> <in-x64.yml> <in-arm64.yml>
import { readFileSync, writeFileSync } from 'node:fs';
import { parse, stringify } from 'yaml';

export function mergeMacUpdateInfo(infos) {
  const [first, ...rest] = infos;
  if (!first) throw new Error('no latest-mac.yml to merge');
  for (const info of rest) {
    if (info.version !== first.version) throw new Error(`versions differ: ${first.version} and ${info.version}`);
  }
  const files = infos.flatMap((info) => info.files ?? []);
  const urls = new Set();
  for (const file of files) {
    if (urls.has(file.url)) throw new Error(`${file.url} appears twice`);
    urls.add(file.url);
  }
  return { ...first, files };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [out, ...inputs] = process.argv.slice(2);
  if (!out || inputs.length < 2) {
    console.error('usage: node scripts/merge-mac-update-info.mjs <out.yml> <in-x64.yml> <in-arm64.yml>');
    process.exit(2);
  }
  const merged = mergeMacUpdateInfo(inputs.map((path) => parse(readFileSync(path, 'utf8'))));
  writeFileSync(out, stringify(merged));
  console.log(`${out}: version ${merged.version}, ${merged.files.length} files`);
}
