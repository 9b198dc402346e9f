/**
 * Service child for figure 5 (a): the service alone, with its in-process cache bounded at BENCH_MEMORY_CACHE_MB, the
 * fake GOAT at BENCH_FAKE_ORIGIN (a process of its own, lib/fake-child.ts) and the lookups sent by bench/memory.ts
 * over loopback HTTP: neither the marketplace nor the load generator counts in this process's memory. It reports a
 * snapshot of its memory on request.
 */
import { buildApp } from '../../src/server/app.js';
import { testConfig } from '../../test/support/app.js';
import { serveMessages } from './child.js';
import { snapshot } from './memory-probe.js';
import { benchEnv } from './scenarios.js';
import { envInt } from './stats.js';

const cacheMb = envInt('BENCH_MEMORY_CACHE_MB', 32);
/**
 * A lookup's deadline timer keeps what the lookup touched reachable until it fires (by design, bounded by rate ×
 * deadline); a short deadline and a wait past it before the last measurement separate that from memory kept for good.
 */
const deadlineMs = envInt('BENCH_MEMORY_DEADLINE_MS', 3000);

const atStart = snapshot();
const app = await buildApp({
  config: testConfig(
    benchEnv(process.env.BENCH_FAKE_ORIGIN!, {
      MARKETLENS_CACHE_MAX_BYTES: String(cacheMb * 1024 * 1024),
      MARKETLENS_DEADLINE_MS: String(deadlineMs),
    }),
  ),
});
await app.listen({ host: '127.0.0.1', port: 0 });
const afterStart = snapshot();

serveMessages({
  snapshot: (m: { collect?: boolean }) => ({ snapshot: snapshot(m.collect !== false) }),
  stop: async () => {
    await app.close();
    setImmediate(() => process.exit(0));
    return {};
  },
});
process.send!({
  type: 'ready',
  port: (app.server.address() as { port: number }).port,
  cache_max_bytes: cacheMb * 1024 * 1024,
  deadline_ms: deadlineMs,
  at_start: atStart,
  after_app_start: afterStart,
});
