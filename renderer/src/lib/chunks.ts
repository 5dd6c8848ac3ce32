/**
 * The code the app fetches on demand (pages: lib/pages.ts, parts of pages: lib/lazy-parts.svelte.ts)
 * registers how to fetch all of it here when its table is first evaluated. Tests call
 * `loadRegisteredChunks` before rendering, so a component under test shows at once, as it does in the
 * app once its chunk has arrived; a test that never imports a table never pays for its chunks.
 */
const loaders: (() => Promise<void>)[] = [];

export function registerChunkLoader(load: () => Promise<void>): void {
  loaders.push(load);
}

/** Runs every registered loader, again while loading registers more (a page that imports a table of parts). */
export async function loadRegisteredChunks(): Promise<void> {
  let done = 0;
  while (done < loaders.length) {
    const batch = loaders.slice(done);
    done = loaders.length;
    await Promise.all(batch.map((load) => load()));
  }
}
