/**
 * The deadlines of a lookup's upstream work. LookupService: the upstream work of a lookup runs to the deadline of the caller who asked for it, not to
 * a deadline of its own started a moment later (the caller would stop waiting first, and a record whose hanging part
 * is cut at the last moment would be assembled for nobody). sourcesContext: a multi-source lookup's sources end a
 * reserve before that deadline, so the record is assembled (a hanging part missing) before the caller stops waiting.
 */
import { SILENT_LOGGER } from '../platform/logger.js';
import { describe, expect, it } from 'vitest';
import { LookupCache } from '../cache/lookup-cache.js';
import { MemoryStore } from '../cache/memory-store.js';
import { loadConfig } from '../config.js';
import { MarketlensError } from '../errors.js';
import type { HttpClient, RequestContext } from '../upstream/http-client.js';
import { LookupService } from './lookup.js';
import { OPERATIONS } from './registry.js';
import { sourcesContext } from './sources.js';

const silent = SILENT_LOGGER;
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
    it(`upstream work ends at the caller's deadline (${cached ? 'through the cache' : 'uncached'})`, async () => {
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
      expect(seen[0]).toBe(deadlineAt);
    });
  }
});

describe('sourcesContext', () => {
  const ctx = (deadlineAt?: number): RequestContext => ({
    marketplace: 'electronics',
    signal: new AbortController().signal,
    ...(deadlineAt === undefined ? {} : { deadlineAt }),
  });
  it("ends a lookup's sources a reserve before its deadline (a tenth of the time left, at most 250 ms)", () => {
    // The clock is pinned: a busy machine's milliseconds between reading it here and there would move the reserve.
    const now = Date.now();
    const clock = () => now;
    expect(sourcesContext(ctx(now + 10_000), clock).deadlineAt).toBe(now + 10_000 - 250);
    expect(sourcesContext(ctx(now + 1000), clock).deadlineAt).toBe(now + 1000 - 100);
    expect(sourcesContext(ctx(now - 5), clock).deadlineAt).toBe(now - 5);
    expect(sourcesContext(ctx()).deadlineAt).toBeUndefined();
  });
});
