/**
 * V8 flags the service runs with (README, "V8 flags"). bin/marketlens puts every one of them on node's command line
 * (`npm start` runs the bin); src/cli.ts imports this module first, so the ones V8 also reads at run time hold for
 * every other way of running the CLI (tsx, cluster workers started from it).
 *
 * --no-allocation-site-pretenuring: in some processes V8's allocation-site pretenuring moves per-request objects
 * straight to old space, and full (mark-compact) GCs then run continuously under load (4–20 per 5 s, up to +52 µs
 * per request); with the flag, 0–1 per run and +5–17 % req/s. Set at run time it still takes effect: V8 reads it at
 * each GC (`node --trace-pretenuring-statistics` prints no pretenuring decision once it is set).
 *
 * --max-semi-space-size=4 (MB; V8's default lets each semi-space grow to 16): every Buffer that dies young holds its
 * malloc'd bytes until the next scavenge, so a large young generation raises malloc's high-water mark, which glibc
 * keeps. With it, RSS after bench figure 5's 100 000 lookups falls by ~100 MB, for a few % of cached throughput. V8
 * sizes the young generation when the process starts, so it works only on the command line.
 *
 * --heap-growing-percent=30: V8 lets the old generation grow to up to 4× what was live at the last full GC before it
 * collects again; a burst of live fetches (each one's objects outlive a scavenge or two) then left 100+ MB of old
 * garbage that RSS kept. At 1.3×, figure 5's RSS stays under 200 MB, for a few more incremental mark-compacts under
 * load (each a few ms).
 */
import { setFlagsFromString } from 'node:v8';

/** The flags V8 still reads after start, set here at run time too. */
export const RUNTIME_V8_FLAGS = ['--no-allocation-site-pretenuring'] as const;

/** Every flag, in bin/marketlens's order (test/start-command.test.ts compares them). */
export const V8_FLAGS = [...RUNTIME_V8_FLAGS, '--max-semi-space-size=4', '--heap-growing-percent=30'] as const;

/**
 * The environment bin/marketlens gives node unless the operator set it (glibc reads it at start, like the young
 * generation's size): at most two malloc arenas instead of 8 per core, one per allocating thread, each keeping its own
 * freed memory. Figure 5: −5 to −10 MB of RSS in single runs (±5 MB of noise).
 */
export const START_ENV = { MALLOC_ARENA_MAX: '2' } as const;

for (const flag of RUNTIME_V8_FLAGS) setFlagsFromString(flag);
