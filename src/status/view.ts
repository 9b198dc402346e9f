/**
 * Raw counters → the figures a person or a monitor reads (GET /api/v1/status), and the sum of several instances.
 * Rates and percentiles are computed here, on read, from counts that add up across instances. A figure with nothing
 * to compute it from (no lookups, no upstream request) is null, never 0.
 */
import { FETCH_TIERS, type FetchTier } from '../config.js';
import { MARKETPLACES, MARKETPLACE_INFO, type Marketplace } from '../marketplaces/catalog.js';
import type { OperationName } from '../operations/types.js';
import {
  CODES,
  MP_FIELDS,
  OP_FIELDS,
  WINDOWS,
  type CircuitView,
  type NotableFailure,
  type RawSnapshot,
  type WindowName,
} from './aggregator.js';
import { LATENCY_BUCKETS, quantileMs } from './latency.js';

export interface LookupFigures {
  /** Lookups answered or failed: live fetches (ok or failed) plus answers served from cache. */
  lookups: number;
  /** Share of lookups the marketplace answered (ok, from cache, or a correct 404 `not_found`), 0–1; null without lookups. */
  success_rate: number | null;
  /** `ok` (answered) and every error code seen, with counts. */
  outcomes: Record<string, number>;
  /** Share of lookups served from cache (hit, stale, shared); null without lookups. */
  cache_share: number | null;
  live_lookups: number;
}

/**
 * Upstream figures. Per marketplace they count upstream requests (latency of each request, answers per tier); per
 * operation they count live lookups (latency of a lookup's whole fetch, lookups per tier of their last answer).
 */
export interface UpstreamFigures {
  requests: number;
  bytes: number;
  requests_per_live_lookup: number | null;
  bytes_per_live_lookup: number | null;
  /** Upper bound of the bucket holding the percentile (buckets are 25 % wide); null without requests. */
  p50_ms: number | null;
  p95_ms: number | null;
  /** Upstream answers (any HTTP status) per fetch tier that got them. */
  tiers: Record<FetchTier, number>;
}

export interface MarketplaceStatus {
  site: string;
  breaker: CircuitView | null;
  last_blocked: NotableFailure | null;
  last_changed: NotableFailure | null;
  windows: Record<WindowName, LookupFigures & { upstream: UpstreamFigures }>;
  operations: Partial<Record<OperationName, Record<WindowName, OperationFigures>>>;
}

export type OperationFigures = LookupFigures & { upstream: UpstreamFigures };

export interface StatusView {
  instance: string;
  generated_at: string;
  marketplaces: Record<Marketplace, MarketplaceStatus>;
}

const WINDOW_NAMES = Object.keys(WINDOWS) as WindowName[];

/** A product that does not exist upstream is a correct answer from a working marketplace (as for the breaker). */
const ANSWERED: ReadonlySet<string> = new Set(['not_found']);

export function lookupFigures(c: readonly number[]): LookupFigures {
  const cached = c[OP_FIELDS.hit]! + c[OP_FIELDS.stale]! + c[OP_FIELDS.shared]!;
  const ok = c[OP_FIELDS.live_ok]! + cached;
  const outcomes: Record<string, number> = { ok };
  let failed = 0;
  let answered = ok;
  CODES.forEach((code, i) => {
    const n = c[OP_FIELDS.codes + i]!;
    if (n > 0) outcomes[code] = n;
    failed += n;
    if (ANSWERED.has(code)) answered += n;
  });
  const lookups = ok + failed;
  return {
    lookups,
    success_rate: lookups === 0 ? null : round(answered / lookups),
    outcomes,
    cache_share: lookups === 0 ? null : round(cached / lookups),
    live_lookups: c[OP_FIELDS.live_ok]! + failed,
  };
}

/** Where the upstream counters sit in a counter row: MP_FIELDS (a marketplace) or OP_FIELDS (an operation). */
type UpstreamLayout = { requests: number; bytes: number; tiers: number; latency: number };

function upstreamFigures(c: readonly number[], liveLookups: number, at: UpstreamLayout = MP_FIELDS): UpstreamFigures {
  // `?? 0`: another instance still running an older version publishes shorter rows.
  const requests = c[at.requests] ?? 0;
  const bytes = c[at.bytes] ?? 0;
  const histogram = c.slice(at.latency, at.latency + LATENCY_BUCKETS);
  const tiers = Object.fromEntries(FETCH_TIERS.map((t, i) => [t, c[at.tiers + i] ?? 0])) as Record<FetchTier, number>;
  return {
    requests,
    bytes,
    requests_per_live_lookup: liveLookups === 0 ? null : round(requests / liveLookups),
    bytes_per_live_lookup: liveLookups === 0 ? null : Math.round(bytes / liveLookups),
    p50_ms: quantileMs(histogram, 0.5),
    p95_ms: quantileMs(histogram, 0.95),
    tiers,
  };
}

function operationFigures(c: readonly number[]): OperationFigures {
  const figures = lookupFigures(c);
  return { ...figures, upstream: upstreamFigures(c, figures.live_lookups, OP_FIELDS) };
}

/** One instance's raw counters (or a sum) → the readable figures. */
export function toView(raw: RawSnapshot): StatusView {
  const marketplaces = {} as Record<Marketplace, MarketplaceStatus>;
  for (const mp of MARKETPLACES) {
    const r = raw.marketplaces[mp];
    const operations: MarketplaceStatus['operations'] = {};
    for (const [name, w] of Object.entries(r.operations) as [OperationName, Record<WindowName, number[]>][]) {
      operations[name] = Object.fromEntries(WINDOW_NAMES.map((win) => [win, operationFigures(w[win])])) as Record<
        WindowName,
        OperationFigures
      >;
    }
    const windows = {} as MarketplaceStatus['windows'];
    for (const win of WINDOW_NAMES) {
      const all = addAll(Object.values(r.operations).map((w) => w[win]));
      const figures = lookupFigures(all);
      windows[win] = { ...figures, upstream: upstreamFigures(r.upstream[win], figures.live_lookups) };
    }
    marketplaces[mp] = {
      site: MARKETPLACE_INFO[mp].site,
      breaker: r.breaker,
      last_blocked: r.last_blocked,
      last_changed: r.last_changed,
      windows,
      operations,
    };
  }
  return { instance: raw.instance, generated_at: raw.generated_at, marketplaces };
}

/**
 * Several instances' raw counters → their sum: counts add; the last block/change is the newest of any instance; the
 * breaker shown is the worst (open > half-open > closed), with the latest reopen time.
 */
export function sumRaw(raws: readonly RawSnapshot[], instance = 'all'): RawSnapshot {
  const generated =
    raws
      .map((r) => r.generated_at)
      .sort()
      .at(-1) ?? new Date().toISOString();
  const marketplaces = {} as RawSnapshot['marketplaces'];
  for (const mp of MARKETPLACES) {
    const parts = raws.map((r) => r.marketplaces[mp]).filter(Boolean);
    const operations: RawSnapshot['marketplaces'][Marketplace]['operations'] = {};
    for (const p of parts) {
      for (const [name, w] of Object.entries(p.operations) as [OperationName, Record<WindowName, number[]>][]) {
        const into = operations[name];
        operations[name] = into
          ? (Object.fromEntries(WINDOW_NAMES.map((win) => [win, addAll([into[win], w[win]])])) as Record<
              WindowName,
              number[]
            >)
          : w;
      }
    }
    marketplaces[mp] = {
      breaker: worstBreaker(parts.map((p) => p.breaker)),
      last_blocked: newest(parts.map((p) => p.last_blocked)),
      last_changed: newest(parts.map((p) => p.last_changed)),
      upstream: Object.fromEntries(
        WINDOW_NAMES.map((win) => [win, addAll(parts.map((p) => p.upstream[win]))]),
      ) as Record<WindowName, number[]>,
      operations,
    };
  }
  return { instance, generated_at: generated, marketplaces };
}

function addAll(arrays: readonly (readonly number[])[]): number[] {
  const width = Math.max(0, ...arrays.map((a) => a.length));
  const out = new Array<number>(width).fill(0);
  for (const a of arrays) a.forEach((v, i) => (out[i]! += v));
  return out;
}

const SEVERITY = { closed: 0, 'half-open': 1, open: 2 } as const;

function worstBreaker(views: readonly (CircuitView | null)[]): CircuitView | null {
  let worst: CircuitView | null = null;
  for (const v of views) {
    if (!v) continue;
    if (
      !worst ||
      SEVERITY[v.state] > SEVERITY[worst.state] ||
      (v.state === worst.state && (v.reopens_at ?? '') > (worst.reopens_at ?? ''))
    )
      worst = v;
  }
  return worst;
}

function newest(failures: readonly (NotableFailure | null)[]): NotableFailure | null {
  let best: NotableFailure | null = null;
  for (const f of failures) if (f && (!best || f.at > best.at)) best = f;
  return best;
}

const round = (x: number) => Math.round(x * 1000) / 1000;
