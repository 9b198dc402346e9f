import { describe, expect, it } from 'vitest';
import { MarketlensError } from '../errors.js';
import { StatusAggregator } from './aggregator.js';
import { sumRaw, toView } from './view.js';

const MIN = 60_000;

function clocked(start = Date.UTC(2026, 10, 24, 1, 0, 0)) {
  let now = start;
  const agg = new StatusAggregator({ instance: 'test', now: () => now });
  return { agg, advance: (ms: number) => (now += ms), at: () => now };
}

const fail = (code: ConstructorParameters<typeof MarketlensError>[0], message: string = code) =>
  new MarketlensError(code, message);

describe('status aggregator', () => {
  it('counts lookups, outcomes by code, success rate and cache share per operation and marketplace', () => {
    const { agg, at } = clocked();
    agg.onLiveResult({ operation: 'resale-b.prices' });
    agg.onLiveResult({ operation: 'resale-b.prices' });
    agg.onCacheAnswer('resale-b.prices', 'hit');
    agg.onCacheAnswer('resale-b.prices', 'miss'); // a live fetch: the seam counted it already
    agg.onLiveFailure({
      operation: 'resale-b.prices',
      error: fail('upstream_blocked', 'GOAT answered with a Cloudflare challenge'),
      at: at(),
    });
    agg.onLiveFailure({ operation: 'resale-b.product', error: fail('upstream_timeout'), at: at() });
    const v = toView(agg.raw()).marketplaces['resale-b'];
    const prices = v.operations['resale-b.prices']!['5m'];
    expect(prices).toMatchObject({
      lookups: 4,
      success_rate: 0.75,
      outcomes: { ok: 3, upstream_blocked: 1 },
      cache_share: 0.25,
      live_lookups: 3,
    });
    expect(v.operations['resale-b.product']!['5m'].outcomes).toEqual({ ok: 0, upstream_timeout: 1 });
    expect(v.windows['5m'].lookups).toBe(5);
    expect(v.windows['5m'].outcomes).toEqual({ ok: 3, upstream_blocked: 1, upstream_timeout: 1 });
    expect(v.last_blocked).toEqual({
      at: new Date(at()).toISOString(),
      operation: 'resale-b.prices',
      reason: 'GOAT answered with a Cloudflare challenge',
    });
    expect(v.last_changed).toBeNull();
    // A marketplace nobody asked: nulls, not zeros, for what cannot be computed.
    const idle = toView(agg.raw()).marketplaces.electronics.windows['5m'];
    expect(idle).toMatchObject({ lookups: 0, success_rate: null, cache_share: null });
    expect(idle.upstream).toMatchObject({ requests: 0, requests_per_live_lookup: null, p50_ms: null, p95_ms: null });
  });

  it('upstream figures: requests and bytes per live lookup, tier that answered, latency percentiles', () => {
    const { agg } = clocked();
    agg.onLiveResult({ operation: 'resale-b.prices' });
    agg.onLiveResult({ operation: 'resale-b.prices' });
    agg.onUpstream({ marketplace: 'resale-b', tier: 'direct', outcome: 'upstream_blocked', seconds: 0.02 });
    for (let i = 0; i < 18; i++)
      agg.onUpstream({ marketplace: 'resale-b', tier: 'proxy', outcome: 'http_200', seconds: 0.1, bytes: 1000 });
    agg.onUpstream({ marketplace: 'resale-b', tier: 'unblocker', outcome: 'http_200', seconds: 3, bytes: 2000 });
    agg.onUpstream({ marketplace: 'resale-b', tier: 'none', outcome: 'circuit_open', seconds: 0 }); // never reached the wire
    const up = toView(agg.raw()).marketplaces['resale-b'].windows['5m'].upstream;
    expect(up.requests).toBe(20);
    expect(up.bytes).toBe(20_000);
    expect(up.requests_per_live_lookup).toBe(10);
    expect(up.bytes_per_live_lookup).toBe(10_000);
    expect(up.tiers).toEqual({ direct: 0, proxy: 18, unblocker: 1, browser: 0 });
    // 100 ms falls in the bucket bounded by 10 × 1.25^11 ≈ 116 ms; the slowest 5 % holds the 3 s answer.
    expect(up.p50_ms).toBe(116);
    expect(up.p95_ms).toBe(116);
    agg.onUpstream({ marketplace: 'resale-b', tier: 'unblocker', outcome: 'http_200', seconds: 3, bytes: 0 });
    const after = toView(agg.raw()).marketplaces['resale-b'].windows['5m'].upstream;
    expect(after.p95_ms).toBeGreaterThanOrEqual(3000);
    expect(after.p95_ms).toBeLessThan(3000 * 1.25);
  });

  it('per operation: upstream time, requests, bytes and answering tier of its live lookups, from the seam', () => {
    const { agg, at } = clocked();
    for (let i = 0; i < 9; i++)
      agg.onLiveResult({
        operation: 'resale-b.prices',
        upstreamMs: 100,
        upstreamRequests: 1,
        upstreamBytes: 1000,
        tier: 'direct',
      });
    agg.onLiveResult({
      operation: 'resale-b.prices',
      upstreamMs: 3000,
      upstreamRequests: 3,
      upstreamBytes: 2000,
      tier: 'proxy',
    });
    // A format change got an answer (its tier counts); a block got none; an open circuit sent nothing (no latency).
    agg.onLiveFailure({
      operation: 'resale-b.product',
      error: fail('upstream_changed'),
      at: at(),
      upstreamMs: 20,
      upstreamRequests: 1,
      upstreamBytes: 500,
      tier: 'unblocker',
    });
    agg.onLiveFailure({
      operation: 'resale-b.product',
      error: fail('upstream_blocked'),
      at: at(),
      upstreamMs: 700,
      upstreamRequests: 3,
      upstreamBytes: 0,
      tier: null,
    });
    agg.onLiveFailure({
      operation: 'resale-b.product',
      error: fail('circuit_open'),
      at: at(),
      upstreamMs: 0,
      upstreamRequests: 0,
      tier: null,
    });
    agg.onCacheAnswer('resale-b.prices', 'hit'); // not a live lookup: no upstream figure moves
    const ops = toView(agg.raw()).marketplaces['resale-b'].operations;
    const prices = ops['resale-b.prices']!['5m'].upstream;
    expect(prices).toEqual({
      requests: 12,
      bytes: 11_000,
      requests_per_live_lookup: 1.2,
      bytes_per_live_lookup: 1100,
      p50_ms: 116, // 100 ms: the bucket bounded by 10 × 1.25^11
      p95_ms: expect.any(Number),
      tiers: { direct: 9, proxy: 1, unblocker: 0, browser: 0 },
    });
    expect(prices.p95_ms).toBeGreaterThanOrEqual(3000);
    expect(prices.p95_ms).toBeLessThan(3000 * 1.25);
    const product = ops['resale-b.product']!['5m'].upstream;
    expect(product).toMatchObject({
      requests: 4,
      bytes: 500,
      requests_per_live_lookup: 1.333,
      tiers: { direct: 0, proxy: 0, unblocker: 1, browser: 0 },
    });
    // Two lookups reached the wire (20 ms → ≤24, 700 ms → ≤867); the refused one is not a 0 ms sample.
    expect([product.p50_ms, product.p95_ms]).toEqual([24, 867]);
    // An operation nobody asked: nulls, not zeros.
    expect(ops['resale-b.prices']!['5m'].lookups).toBe(11);
    expect(toView(agg.raw()).marketplaces.electronics.operations['electronics.product']!['5m'].upstream).toMatchObject({
      requests: 0,
      p50_ms: null,
      requests_per_live_lookup: null,
    });
    // Sums across instances keep the per-operation upstream figures.
    const total = toView(sumRaw([agg.raw(), agg.raw()])).marketplaces['resale-b'].operations['resale-b.prices']!['5m']
      .upstream;
    expect(total).toMatchObject({
      requests: 24,
      bytes: 22_000,
      requests_per_live_lookup: 1.2,
      p50_ms: 116,
      tiers: { direct: 18, proxy: 2 },
    });
  });

  it('the 5-minute window forgets after 5 minutes, the hour after an hour; memory stays one bucket per minute', () => {
    const { agg, advance } = clocked();
    agg.onLiveResult({ operation: 'sportswear.product' });
    advance(3 * MIN);
    agg.onLiveResult({ operation: 'sportswear.product' });
    let w = toView(agg.raw()).marketplaces.sportswear.windows;
    expect([w['5m'].lookups, w['1h'].lookups]).toEqual([2, 2]);
    advance(3 * MIN); // the first lookup is 6 minutes old now
    w = toView(agg.raw()).marketplaces.sportswear.windows;
    expect([w['5m'].lookups, w['1h'].lookups]).toEqual([1, 2]);
    advance(58 * MIN); // both older than an hour; their buckets get reused by later minutes
    agg.onLiveResult({ operation: 'sportswear.product' });
    w = toView(agg.raw()).marketplaces.sportswear.windows;
    expect([w['5m'].lookups, w['1h'].lookups]).toEqual([1, 1]);
  });

  it('sums instances: counts add, the newest block wins, the worst breaker shows', () => {
    const a = clocked();
    const b = clocked();
    a.agg.onLiveResult({ operation: 'resale-a.search' });
    b.agg.onLiveResult({ operation: 'resale-a.search' });
    b.agg.onLiveFailure({
      operation: 'resale-a.product',
      error: fail('upstream_changed', 'no __NEXT_DATA__'),
      at: b.at() + 1000,
    });
    a.agg.onUpstream({ marketplace: 'resale-a', tier: 'direct', outcome: 'http_200', seconds: 0.05, bytes: 10 });
    b.agg.onUpstream({ marketplace: 'resale-a', tier: 'browser', outcome: 'http_200', seconds: 2, bytes: 30 });
    const rawA = a.agg.raw();
    const rawB = b.agg.raw();
    rawA.marketplaces['resale-a'].breaker = { state: 'closed', reopens_at: null };
    rawB.marketplaces['resale-a'].breaker = { state: 'open', reopens_at: '2026-11-24T01:01:00.000Z' };
    const total = toView(sumRaw([rawA, rawB])).marketplaces['resale-a'];
    expect(total.windows['5m'].lookups).toBe(3);
    expect(total.windows['5m'].outcomes).toEqual({ ok: 2, upstream_changed: 1 });
    expect(total.windows['5m'].upstream).toMatchObject({
      requests: 2,
      bytes: 40,
      tiers: { direct: 1, proxy: 0, unblocker: 0, browser: 1 },
    });
    expect(total.breaker).toEqual({ state: 'open', reopens_at: '2026-11-24T01:01:00.000Z' });
    expect(total.last_changed).toMatchObject({ operation: 'resale-a.product', reason: 'no __NEXT_DATA__' });
  });
});
