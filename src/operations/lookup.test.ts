/**
 * LookupService's deadline: the upstream work of a lookup ends before the caller stops waiting, so a part that never
 * answers costs only that part (the record is assembled and sent in time) instead of the whole answer.
 */
import { describe, expect, it } from 'vitest';
import { LookupCache } from '../cache/lookup-cache.js';
import { MemoryStore } from '../cache/memory-store.js';
import { loadConfig } from '../config.js';
import { MarketlensError } from '../errors.js';
import type { HttpClient, RequestContext } from '../upstream/http-client.js';
import { LookupService } from './lookup.js';
import { OPERATIONS } from './registry.js';

const silent = { info() {}, warn() {}, error() {} };
const config = loadConfig({ MARKETLENS_DEADLINE_MS: '5000', MARKETLENS_LOG_LEVEL: 'silent' });

/** An upstream that records the deadline each lookup's requests were given, and fails (nothing to parse). */
function recordingHttp(seen: number[]): HttpClient {
  return {
    request: () => Promise.reject(new Error('not used')),
    lookup: (ctx: RequestContext) => {
      seen.push(ctx.deadlineAt!);
      return Promise.reject(new MarketlensError('upstream_error', 'recorded'));
    },
  };
}

const op = OPERATIONS['electronics.product'];
const params = { query: '6500901' };

describe('LookupService deadline', () => {
  for (const cached of [false, true]) {
    it(`upstream work ends a reserve before the caller's deadline (${cached ? 'through the cache' : 'uncached'})`, async () => {
      const seen: number[] = [];
      const cache = cached
        ? new LookupCache({
            store: new MemoryStore(1 << 20),
            ttl: { prices: 60, products: 900, searches: 300, finder: 86_400 },
            staleIfErrorSeconds: 0,
            deadlineMs: config.deadlineMs,
            log: silent,
          })
        : undefined;
      const service = new LookupService(config, recordingHttp(seen), cache);
      // The caller's deadline was set when its request arrived, a moment before the lookup (and its flight) starts.
      const deadlineAt = Date.now() + config.deadlineMs - 50;
      await expect(service.run(op, params, { deadlineAt })).rejects.toMatchObject({ code: 'upstream_error' });
      expect(seen).toHaveLength(1);
      expect(seen[0]).toBeLessThan(deadlineAt);
      expect(seen[0]).toBeGreaterThanOrEqual(deadlineAt - 500);
    });
  }
});
