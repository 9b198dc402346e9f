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

const fail = (code: ConstructorParameters<typeof MarketlensError>[0], message: string = code) => new MarketlensError(code, message);

describe('status aggregator', () => {
  it('counts lookups, outcomes by code, success rate and cache share per operation and marketplace', () => {
    const { agg, at } = clocked();
    agg.onLiveResult({ operation: 'resale-b.prices' });
    agg.onLiveResult({ operation: 'resale-b.prices' });
    agg.onCacheAnswer('resale-b.prices', 'hit');
    agg.onCacheAnswer('resale-b.prices', 'miss'); // a live fetch: the seam counted it already
    agg.onLiveFailure({ operation: 'resale-b.prices', error: fail('upstream_blocked', 'GOAT answered with a Cloudflare challenge'), at: at() });
    agg.onLiveFailure({ operation: 'resale-b.product', error: fail('upstream_timeout'), at: at() });
    const v = toView(agg.raw()).marketplaces['resale-b'];
    const prices = v.operations['resale-b.prices']!['5m'];
    expect(prices).toEqual({ lookups: 4, success_rate: 0.75, outcomes: { ok: 3, upstream_blocked: 1 }, cache_share: 0.25, live_lookups: 3 });
    expect(v.operations['resale-b.product']!['5m'].outcomes).toEqual({ ok: 0, upstream_timeout: 1 });
    expect(v.windows['5m'].lookups).toBe(5);
    expect(v.windows['5m'].outcomes).toEqual({ ok: 3, upstream_blocked: 1, upstream_timeout: 1 });
    expect(v.last_blocked).toEqual({ at: new Date(at()).toISOString(), operation: 'resale-b.prices', reason: 'GOAT answered with a Cloudflare challenge' });
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
    for (let i = 0; i < 18; i++) agg.onUpstream({ marketplace: 'resale-b', tier: 'proxy', outcome: 'http_200', seconds: 0.1, bytes: 1000 });
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
    b.agg.onLiveFailure({ operation: 'resale-a.product', error: fail('upstream_changed', 'no __NEXT_DATA__'), at: b.at() + 1000 });
    a.agg.onUpstream({ marketplace: 'resale-a', tier: 'direct', outcome: 'http_200', seconds: 0.05, bytes: 10 });
    b.agg.onUpstream({ marketplace: 'resale-a', tier: 'browser', outcome: 'http_200', seconds: 2, bytes: 30 });
    const rawA = a.agg.raw();
    const rawB = b.agg.raw();
    rawA.marketplaces['resale-a'].breaker = { state: 'closed', reopens_at: null };
    rawB.marketplaces['resale-a'].breaker = { state: 'open', reopens_at: '2026-11-24T01:01:00.000Z' };
    const total = toView(sumRaw([rawA, rawB])).marketplaces['resale-a'];
    expect(total.windows['5m'].lookups).toBe(3);
    expect(total.windows['5m'].outcomes).toEqual({ ok: 2, upstream_changed: 1 });
    expect(total.windows['5m'].upstream).toMatchObject({ requests: 2, bytes: 40, tiers: { direct: 1, proxy: 0, unblocker: 0, browser: 1 } });
    expect(total.breaker).toEqual({ state: 'open', reopens_at: '2026-11-24T01:01:00.000Z' });
    expect(total.last_changed).toMatchObject({ operation: 'resale-a.product', reason: 'no __NEXT_DATA__' });
  });
});
