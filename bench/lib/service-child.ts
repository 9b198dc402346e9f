/**
 * Child process for the load script (bench/load.ts): a fake marketplace, the marketlens service and a bare Fastify app
 * serving the same bytes as a cached lookup, all on 127.0.0.1. (Figure 1 no longer uses it: it runs the start command,
 * bench/lib/versus-bare.ts.) Configured by BENCH_SERVICE_ENV (JSON of
 * MARKETLENS_* overrides) and BENCH_LOG_LEVEL. Answers IPC messages: `rss`, `usage` (CPU and GCs so far),
 * `key` (create a key with a rate),
 * `stop`.
 */
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { buildApp } from '../../src/server/app.js';
import { bufferedStdout } from '../../src/server/log-destination.js';
import { FakeUpstream } from '../../test/support/fake-upstream.js';
import { TEST_KEY, testConfig } from '../../test/support/app.js';
import { memory, serveMessages } from './child.js';
import { processUsage, watchProcessUsage } from './process-usage.js';
import { benchEnv } from './scenarios.js';
import { goatPayload, startGoatFake } from './goat-fake.js';

const CACHED_PATH = '/api/v1/scraper/resale-b/prices?query=1341930';

// The load test runs the fake marketplace in its own process (BENCH_FAKE_ORIGIN), so it neither competes with the
// service for its event loop nor counts in the service's memory; the other figures run it here.
const fake = process.env.BENCH_FAKE_ORIGIN ? undefined : await startGoatFake(new FakeUpstream());
const fakeOrigin = process.env.BENCH_FAKE_ORIGIN ?? fake!.origin;

const overrides = JSON.parse(process.env.BENCH_SERVICE_ENV ?? '{}') as Record<string, string>;
const logLevel = process.env.BENCH_LOG_LEVEL ?? 'info';
// A (very high) rate limit on the key keeps the limiter in the path, as in a deployment.
const config = testConfig(
  benchEnv(fakeOrigin, { MARKETLENS_LOG_LEVEL: logLevel, MARKETLENS_RATE_LIMIT: '1000000000/min', ...overrides }),
);
// Request logs are written (the production default is info) as the service writes them (batched), but to /dev/null,
// not into the bench's output.
const app = await buildApp({ config, logStream: bufferedStdout('/dev/null').stream });
await app.listen({ host: '127.0.0.1', port: 0 });
const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;

// Warm the cache and keep the exact bytes and content type of the cached answer for the bare server.
const warm = await fetch(base + CACHED_PATH, { headers: { 'x-api-key': TEST_KEY } });
if (warm.status !== 200) throw new Error(`warm-up lookup answered ${warm.status}: ${await warm.text()}`);
const cachedBytes = Buffer.from(await warm.arrayBuffer());
const contentType = warm.headers.get('content-type') ?? 'application/json';

const bare = Fastify({ logger: false });
bare.get('/api/v1/scraper/resale-b/prices', async (_req, reply) => reply.type(contentType).send(cachedBytes));
await bare.listen({ host: '127.0.0.1', port: 0 });
const bareBase = `http://127.0.0.1:${(bare.server.address() as AddressInfo).port}`;

watchProcessUsage();
serveMessages({
  rss: () => memory(true),
  usage: () => ({ ...processUsage() }),
  key: async (m: { rate: string }) => ({
    key: (await app.marketlens.keys.create('bench-limited', { rate_limit: m.rate })).key,
  }),
  stop: async () => {
    await app.close();
    await bare.close();
    await fake?.stop();
    setImmediate(() => process.exit(0));
    return {};
  },
});

process.send!({
  type: 'ready',
  base,
  bare: bareBase,
  path: CACHED_PATH,
  bytes: cachedBytes.length,
  payload: goatPayload().source,
  logLevel,
  nodeFlags: process.execArgv.filter((a) => a.startsWith('--') && a !== '--import' && a !== '--expose-gc'),
  ...memory(true),
});
