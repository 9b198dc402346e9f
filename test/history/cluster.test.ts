/**
 * Tracked products across a cluster (issue 17 Done-when): two real `marketlens serve` processes on one Redis and one
 * PostgreSQL, 20 products tracked at 60 s for 3 minutes against a fake GOAT that counts fetches per product. Each
 * is fetched 3–4 times in total (once per interval across the cluster), and killing one instance half-way changes
 * nothing: the survivor runs every job scheduler.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addJob } from '../../src/schedule/index.js';
import { openStore } from '../../src/store/index.js';
import { startServe, type Served } from '../support/binary.js';
import { FakeUpstream } from '../support/fake-upstream.js';
import { deletePrefix, redisAvailable, TEST_REDIS_URL, uniquePrefix } from '../support/redis.js';
import { readCapture, sharedAvailable } from '../support/shared.js';
import { createTestDatabase, engineAvailable, type TestDatabase } from '../support/stores.js';

const BUY_BAR_PATH = '/web-api/v1/product_variants/buy_bar_data';
const PRODUCTS = 20;
const RUN_MS = 180_000;

/**
 * SIGKILL to the server itself: `startServe` spawns tsx, which runs the server as its own child, so killing only the
 * tsx process would leave the server running (a kill that kills nothing, and a leaked process).
 */
function killHard(s: Served): number[] {
  // The server is the spawned process itself (or, under a wrapper such as tsx, its child): kill both, hard.
  let pids: number[] = [];
  try {
    pids = execFileSync('pgrep', ['-P', String(s.child.pid)])
      .toString()
      .trim()
      .split('\n')
      .filter(Boolean)
      .map(Number);
  } catch {
    // no child process
  }
  for (const pid of pids) process.kill(pid, 'SIGKILL');
  if (s.child.pid !== undefined && s.child.exitCode === null && s.child.signalCode === null) {
    s.child.kill('SIGKILL');
    pids.push(s.child.pid);
  }
  return pids;
}

/** Running (a killed process not yet reaped is a zombie: dead, though signal 0 still finds it). */
const alive = (pid: number) => {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};

describe.skipIf(!redisAvailable || !engineAvailable('postgres') || !sharedAvailable)(
  'tracked products on two instances (BullMQ)',
  () => {
    const goat = new FakeUpstream();
    const prefix = uniquePrefix();
    let db: TestDatabase;
    const servers: Served[] = [];

    beforeAll(async () => {
      await goat.start();
      goat.serve('/', '<!DOCTYPE html><html><head><title>GOAT</title></head><body></body></html>');
      goat.serve(BUY_BAR_PATH, readCapture('goat/dewuapiparser_goat_1341930_buy_bar_data.json'), {
        type: 'application/json',
      });
      db = await createTestDatabase('postgres');
    });
    afterAll(async () => {
      for (const s of servers) killHard(s);
      await goat.stop();
      await db?.drop();
      await deletePrefix(prefix);
    });

    it(
      'each product is fetched 3–4 times in 3 minutes; a killed instance changes nothing',
      { timeout: RUN_MS + 90_000 },
      async () => {
        const store = await openStore(db.config);
        for (let i = 0; i < PRODUCTS; i++) {
          await addJob(store.db, {
            kind: 'track',
            payload: {
              operation: 'resale-b.prices',
              params: { query: String(2_000_000 + i), country: 'US' },
              ownerKeyId: null,
            },
            intervalMs: 60_000,
          });
        }
        await store.close();
        const env = {
          ...db.env,
          MARKETLENS_PORT: '0',
          MARKETLENS_API_KEYS: 'ml_cluster_test_key_000000000000000',
          MARKETLENS_REDIS_URL: TEST_REDIS_URL,
          MARKETLENS_REDIS_PREFIX: prefix,
          MARKETLENS_RESALE_B_ORIGIN: goat.origin,
          MARKETLENS_RATE_LIMIT: '0',
          MARKETLENS_LOG_LEVEL: 'info', // startServe waits for the "Server listening" line
        };
        const t0 = Date.now();
        servers.push(await startServe(env));
        servers.push(await startServe(env));
        // Half-way, one instance dies without a goodbye.
        await new Promise((r) => setTimeout(r, RUN_MS / 2 - (Date.now() - t0)));
        const requestsAtKill = goat.requests.length;
        const killed = killHard(servers[0]!);
        expect(killed.length).toBeGreaterThan(0);
        await new Promise((r) => setTimeout(r, 500));
        expect(killed.filter(alive)).toEqual([]);
        await new Promise((r) => setTimeout(r, RUN_MS - (Date.now() - t0)));
        const per = new Map<string, number>();
        for (const r of goat.requests)
          if (r.path === BUY_BAR_PATH)
            per.set(r.query.get('productTemplateId')!, (per.get(r.query.get('productTemplateId')!) ?? 0) + 1);
        const counts = [...per.values()];
        expect(per.size, JSON.stringify([...per])).toBe(PRODUCTS);
        expect(Math.min(...counts), JSON.stringify([...per])).toBeGreaterThanOrEqual(3);
        expect(Math.max(...counts), JSON.stringify([...per])).toBeLessThanOrEqual(4);
        // The survivor kept working after the kill, and only it fetched from then on.
        expect(servers[1]!.child.exitCode).toBeNull();
        const after = new Set(
          goat.requests
            .slice(requestsAtKill)
            .filter((r) => r.path === BUY_BAR_PATH)
            .map((r) => r.query.get('productTemplateId')),
        );
        expect(after.size).toBe(PRODUCTS);
      },
    );
  },
);
