/**
 * The rolling figures behind /api/v1/status: per marketplace and operation, per-minute counters over the last hour
 * (5-minute and 1-hour windows are sums of the newest buckets). Fed by three sources, each costing a counter bump:
 * - the live-results seam: a successful live fetch, or a failed one with its error code, each with the lookup's
 *   upstream time, requests, bytes and answering tier (per operation: the lookup service knows them per lookup);
 * - the routes' cache outcome: an answer served from cache (hit, stale, shared);
 * - the fetch layer's UpstreamObserver: each upstream request's tier, outcome, latency and size (per marketplace:
 *   the upstream event does not know which operation sent it).
 */
import { ERROR_CODES, type ErrorCode } from '../errors.js';
import { MARKETPLACES, type Marketplace } from '../marketplaces/catalog.js';
import type { LiveFailure, LiveResult, LiveUpstream } from '../operations/live-results.js';
import { OPERATIONS } from '../operations/registry.js';
import { OPERATION_NAMES, type OperationName } from '../operations/types.js';
import type { UpstreamEvent, UpstreamObserver } from '../upstream/observer.js';
import { FETCH_TIERS } from '../config.js';
import { LATENCY_BUCKETS, latencyBucket } from './latency.js';
import { MinuteRing, minuteOf } from './minute-ring.js';

export const CODES = Object.keys(ERROR_CODES) as ErrorCode[];
/**
 * Operation counters: live successes, cache answers by kind, one counter per error code, then the live lookups'
 * upstream figures: requests, bytes, lookups per tier that answered, and the histogram of their upstream time.
 */
export const OP_FIELDS = {
  live_ok: 0,
  hit: 1,
  stale: 2,
  shared: 3,
  codes: 4,
  requests: 4 + CODES.length,
  bytes: 5 + CODES.length,
  tiers: 6 + CODES.length,
  latency: 6 + CODES.length + FETCH_TIERS.length,
} as const;
const CODE_INDEX = new Map<string, number>(CODES.map((c, i) => [c, OP_FIELDS.codes + i]));
const OP_TIER_INDEX = new Map<string, number>(FETCH_TIERS.map((t, i) => [t, OP_FIELDS.tiers + i]));
const OP_WIDTH = OP_FIELDS.latency + LATENCY_BUCKETS;

/** Marketplace counters: upstream requests, bytes, answers per tier, then the latency histogram. */
export const MP_FIELDS = { requests: 0, bytes: 1, tiers: 2, latency: 2 + FETCH_TIERS.length } as const;
const TIER_INDEX = new Map<string, number>(FETCH_TIERS.map((t, i) => [t, MP_FIELDS.tiers + i]));
const MP_WIDTH = MP_FIELDS.latency + LATENCY_BUCKETS;

export const WINDOWS = { '5m': 5, '1h': 60 } as const;
export type WindowName = keyof typeof WINDOWS;

/** The last failure of a kind a person must act on: when, which operation, and what upstream did. */
export interface NotableFailure {
  at: string;
  operation: OperationName;
  reason: string;
}

export interface CircuitView {
  state: 'closed' | 'open' | 'half-open';
  /** When an open circuit lets its next probe through (ISO time), else null. */
  reopens_at: string | null;
}

/** The raw, mergeable form of one instance's figures (what is published to Redis and summed). */
export interface RawSnapshot {
  instance: string;
  generated_at: string;
  marketplaces: Record<
    Marketplace,
    {
      breaker: CircuitView | null;
      last_blocked: NotableFailure | null;
      last_changed: NotableFailure | null;
      /** Per window: the summed marketplace counters (MP_FIELDS layout). */
      upstream: Record<WindowName, number[]>;
      /** Per window and operation: the summed operation counters (OP_FIELDS layout; older instances' may be shorter). */
      operations: Partial<Record<OperationName, Record<WindowName, number[]>>>;
    }
  >;
}

export interface StatusAggregatorOptions {
  instance: string;
  now?: () => number;
  /** The fetch layer's circuit breakers, when the client has them. */
  circuit?: (mp: Marketplace) => CircuitView | undefined;
}

const OP_INDEX = new Map<string, number>(OPERATION_NAMES.map((n, i) => [n, i]));
const MP_INDEX = new Map<string, number>(MARKETPLACES.map((m, i) => [m, i]));

export class StatusAggregator implements UpstreamObserver {
  private readonly ops = OPERATION_NAMES.map(() => new MinuteRing(OP_WIDTH));
  private readonly mps = MARKETPLACES.map(() => new MinuteRing(MP_WIDTH));
  private readonly lastBlocked = new Map<Marketplace, NotableFailure>();
  private readonly lastChanged = new Map<Marketplace, NotableFailure>();
  private readonly now: () => number;

  constructor(private readonly options: StatusAggregatorOptions) {
    this.now = options.now ?? Date.now;
  }

  /** The seam: a successful live fetch, with its upstream figures. */
  onLiveResult(r: Pick<LiveResult, 'operation' | keyof LiveUpstream>): void {
    this.recordLive(r.operation, OP_FIELDS.live_ok, r);
  }

  /** The seam: a failed live fetch, counted under its error code; blocks and format changes are remembered. */
  onLiveFailure(f: Pick<LiveFailure, 'operation' | 'error' | 'at' | keyof LiveUpstream>): void {
    const field = CODE_INDEX.get(f.error.code);
    if (field !== undefined) this.recordLive(f.operation, field, f);
    if (f.error.code === 'upstream_blocked' || f.error.code === 'upstream_changed') {
      const mp = OPERATIONS[f.operation]?.marketplace;
      if (!mp) return;
      const notable = { at: new Date(f.at).toISOString(), operation: f.operation, reason: f.error.message };
      (f.error.code === 'upstream_blocked' ? this.lastBlocked : this.lastChanged).set(mp, notable);
    }
  }

  /** The routes: how an answer was served. A `miss` is a live fetch, already counted by the seam. */
  onCacheAnswer(operation: string, result: 'hit' | 'miss' | 'stale' | 'shared'): void {
    if (result !== 'miss') this.bumpOp(operation, OP_FIELDS[result]);
  }

  /** The fetch layer: one event per upstream request (tier `none` = refused before the wire: breaker, queue). */
  onUpstream(e: UpstreamEvent): void {
    const i = MP_INDEX.get(e.marketplace);
    if (i === undefined || e.tier === 'none') return;
    const ring = this.mps[i]!;
    const base = ring.slot(minuteOf(this.now()));
    const c = ring.counts;
    c[base + MP_FIELDS.requests]! += 1;
    if (e.bytes !== undefined) c[base + MP_FIELDS.bytes]! += e.bytes;
    // An HTTP answer (of any status the operation then judges) means that tier got through.
    if (e.outcome.startsWith('http_')) {
      const t = TIER_INDEX.get(e.tier);
      if (t !== undefined) c[base + t]! += 1;
    }
    c[base + MP_FIELDS.latency + latencyBucket(e.seconds)]! += 1;
  }

  /** This instance's figures in mergeable form. */
  raw(): RawSnapshot {
    const now = this.now();
    const minute = minuteOf(now);
    const marketplaces = {} as RawSnapshot['marketplaces'];
    MARKETPLACES.forEach((mp, i) => {
      const operations: RawSnapshot['marketplaces'][Marketplace]['operations'] = {};
      OPERATION_NAMES.forEach((name, j) => {
        if (OPERATIONS[name].marketplace !== mp) return;
        operations[name] = windows((span) => this.ops[j]!.sum(minute, span));
      });
      marketplaces[mp] = {
        breaker: this.options.circuit?.(mp) ?? null,
        last_blocked: this.lastBlocked.get(mp) ?? null,
        last_changed: this.lastChanged.get(mp) ?? null,
        upstream: windows((span) => this.mps[i]!.sum(minute, span)),
        operations,
      };
    });
    return { instance: this.options.instance, generated_at: new Date(now).toISOString(), marketplaces };
  }

  private bumpOp(operation: string, field: number): void {
    const j = OP_INDEX.get(operation);
    if (j === undefined) return;
    const ring = this.ops[j]!;
    ring.counts[ring.slot(minuteOf(this.now())) + field]! += 1;
  }

  /** A live lookup: its outcome counter, and what its fetch took (a lookup refused before the wire has no latency). */
  private recordLive(operation: string, field: number, u: LiveUpstream): void {
    const j = OP_INDEX.get(operation);
    if (j === undefined) return;
    const ring = this.ops[j]!;
    const base = ring.slot(minuteOf(this.now()));
    const c = ring.counts;
    c[base + field]! += 1;
    if (u.upstreamRequests !== undefined) c[base + OP_FIELDS.requests]! += u.upstreamRequests;
    if (u.upstreamBytes !== undefined) c[base + OP_FIELDS.bytes]! += u.upstreamBytes;
    if (u.tier) {
      const t = OP_TIER_INDEX.get(u.tier);
      if (t !== undefined) c[base + t]! += 1;
    }
    if (u.upstreamMs !== undefined && u.upstreamRequests !== 0)
      c[base + OP_FIELDS.latency + latencyBucket(u.upstreamMs / 1000)]! += 1;
  }
}

function windows(sum: (span: number) => number[]): Record<WindowName, number[]> {
  return { '5m': sum(WINDOWS['5m']), '1h': sum(WINDOWS['1h']) };
}
