/**
 * Service child for the hostile fill (issue 21, bench/memory.ts drives it over loopback HTTP): a 256 MB in-process
 * cache (BENCH_HOSTILE_CACHE_MB) filled with distinct ~47 KB watchmarket.finder answers; this process samples its own
 * RSS during the fill for the peak and reports snapshots on request.
 *
 * The real finder has only ~100 distinct queries whose answer is that big (its catalog has 28 groups; the key is the
 * lower-cased query), so the bench serves the finder with one change: every query answers as `query=manufacturer`
 * does (the 545 brands in both forms) and names its own cache entry. Everything else — route, cache, serialisation,
 * the per-entry Buffer — is the service's own path.
 */
import { watchmarketFinder, matchFilterGroups } from '../../src/marketplaces/watchmarket/finder.js';
import type { CatalogGroup } from '../../src/marketplaces/watchmarket/schema.js';
import { BUILT_IN_REGISTRY, Registry } from '../../src/operations/registry.js';
import { complete, type AnyOperation } from '../../src/operations/types.js';
import { buildApp } from '../../src/server/app.js';
import { testConfig } from '../../test/support/app.js';
import { serveMessages } from './child.js';
import { sampleRssPeak, snapshot, type MemorySnapshot } from './memory-probe.js';
import { envInt } from './stats.js';

const cacheMb = envInt('BENCH_HOSTILE_CACHE_MB', 256);
const deadlineMs = 3000;

const atStart = snapshot();
const finder: AnyOperation = {
  ...watchmarketFinder,
  parse: (catalog: readonly CatalogGroup[]) => complete(matchFilterGroups(catalog, 'manufacturer')),
};
const registry = new Registry(
  BUILT_IN_REGISTRY.marketplaces,
  BUILT_IN_REGISTRY.operations.map((op) => (op.name === finder.name ? finder : op)),
);
const app = await buildApp({
  registry,
  config: testConfig({
    MARKETLENS_CACHE_MAX_BYTES: String(cacheMb * 1024 * 1024),
    MARKETLENS_DEADLINE_MS: String(deadlineMs),
  }),
});
await app.listen({ host: '127.0.0.1', port: 0 });
const afterStart = snapshot();
const { port } = app.server.address() as { port: number };

let peak: { stop(): number } | undefined;
const steps: Record<string, MemorySnapshot> = { at_start: atStart, after_app_start: afterStart };
serveMessages({
  'fill-start': () => {
    peak = sampleRssPeak(10);
    return {};
  },
  'fill-end': () => {
    const peakRss = peak?.stop() ?? 0;
    steps.after_fill = snapshot(false);
    return { peak_rss: peakRss };
  },
  idle: async () => {
    // Past every lookup's deadline, then a full GC: what the process keeps. A GC first too: the backing stores of the
    // Buffers it collects are freed by a background sweep, after the GC returns, and would still count just after it.
    (globalThis as { gc?: () => void }).gc?.();
    await new Promise((r) => setTimeout(r, deadlineMs + 500));
    steps.idle_gc = snapshot(true);
    return { steps };
  },
  stop: async () => {
    await app.close();
    process.exit(0);
  },
});
process.send!({ type: 'ready', port, cache_max_bytes: cacheMb * 1024 * 1024 });
