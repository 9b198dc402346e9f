/**
 * V8 flags the service needs, set by the process itself (README, "V8 flags"). The bin imports this module alone
 * before the CLI (so the flags hold from the first GC on; `npm start` passes them to node instead), and src/cli.ts
 * imports it first, for every other way of running the CLI (tsx, cluster workers started from them).
 *
 * --no-allocation-site-pretenuring: in some processes V8's allocation-site pretenuring moves per-request objects
 * straight to old space, and full (mark-compact) GCs then run continuously under load (4–20 per 5 s, up to +52 µs
 * per request); with the flag, 0–1 per run and +5–17 % req/s. Set at run time it still takes effect: V8 reads it at
 * each GC (`node --trace-pretenuring-statistics` prints no pretenuring decision once it is set; test/workers.test.ts).
 */
import { setFlagsFromString } from 'node:v8';

export const V8_FLAGS = ['--no-allocation-site-pretenuring'] as const;

for (const flag of V8_FLAGS) setFlagsFromString(flag);
