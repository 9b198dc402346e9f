/**
 * Runs one operation: upstream fetch, then parse, then the record check. The cache layer (src/cache) wraps
 * `fetchAndParse` when one is given (the service); without one (`marketlens lookup`) every run is a live fetch.
 */
import { cacheKey } from '../cache/cache-key.js';
import type { LookupCache } from '../cache/lookup-cache.js';
import type { Config } from '../config.js';
import { MarketlensError, upstreamChanged } from '../errors.js';
import type { HttpClient } from '../upstream/http-client.js';
import type { ParsePool } from './parse-pool.js';
import type { Operation } from './types.js';

export type CacheStatus = 'hit' | 'miss' | 'stale' | 'shared';

export interface LookupResult {
  /** The record, serialised once: cached answers are sent as these bytes. */
  json: string;
  /** When the upstream fetch happened (ms since epoch). */
  fetchedAt: number;
  /** `fetchedAt` as an HTTP date, when already computed (cached answers keep it). */
  lastModified?: string;
  cache: CacheStatus;
  /** Timings of this request's own work (absent on cache hits). */
  upstreamMs?: number;
  parseMs?: number;
  /** Time spent waiting for an identical in-flight fetch (X-Cache: shared). */
  waitMs?: number;
  /** Record parts left null because their source failed. */
  missingParts: string[];
}

export interface LookupOptions {
  /** The lookup's one deadline. */
  signal?: AbortSignal;
  /**
   * The deadline as a time (ms since epoch) instead of a signal: the signal is then made only when upstream work is
   * needed, so a cache hit costs no timer. Without either, MARKETLENS_DEADLINE_MS from now.
   */
  deadlineAt?: number;
  /** Oldest cached answer the caller accepts, in seconds; 0 forces a live fetch. */
  maxAgeSeconds?: number;
}

export class LookupService {
  constructor(
    private readonly config: Config,
    private readonly http: HttpClient,
    private readonly cache?: LookupCache,
    /** Big bodies are parsed in its worker threads, so the event loop stays free for other requests. */
    private readonly parsePool?: ParsePool,
  ) {}

  run(op: Operation, params: Record<string, unknown>, opts: LookupOptions): Promise<LookupResult> {
    const deadlineAt = opts.deadlineAt ?? Date.now() + this.config.deadlineMs;
    const deadline = () => opts.signal ?? AbortSignal.timeout(Math.max(0, deadlineAt - Date.now()));
    if (!this.cache) return this.fetchAndParse(op, params, deadline());
    return this.cache.lookup({
      key: cacheKey(op.name, params),
      cacheClass: op.cacheClass,
      marketplace: op.marketplace,
      maxAgeSeconds: opts.maxAgeSeconds,
      deadline,
      fetch: (signal) => this.fetchAndParse(op, params, signal),
    });
  }

  /** The uncached path: fetch every upstream body, parse, check the record against the spec schema. */
  async fetchAndParse(op: Operation, params: Record<string, unknown>, signal: AbortSignal): Promise<LookupResult> {
    const t0 = performance.now();
    const bodies = await op.fetch({ http: this.http, marketplace: op.marketplace, signal, config: this.config }, params);
    const fetchedAt = Date.now();
    const t1 = performance.now();
    const json = await this.parse(op, bodies, params);
    const t2 = performance.now();
    return {
      json,
      fetchedAt,
      cache: 'miss',
      upstreamMs: t1 - t0,
      parseMs: t2 - t1,
      missingParts: op.missingParts?.(bodies) ?? [],
    };
  }

  private async parse(op: Operation, bodies: unknown, params: Record<string, unknown>): Promise<string> {
    if (this.parsePool?.wants(bodies)) {
      try {
        return await this.parsePool.parse(op.name, bodies, params);
      } catch (e) {
        if (e instanceof MarketlensError) throw e;
        // Bodies a thread cannot receive (not cloneable) or a worker that failed to start: parse here instead.
      }
    }
    return JSON.stringify(parseAndCheck(op, bodies, params));
  }
}

/**
 * Parses bodies and checks the record against the operation's spec schema: a parser that produced a wrong shape
 * means upstream changed under it, never a 500 and never a silently wrong record.
 */
export function parseAndCheck(op: Operation, bodies: unknown, params: Record<string, unknown>): unknown {
  let record: unknown;
  try {
    record = op.parse(bodies, params);
  } catch (e) {
    if (e instanceof MarketlensError) throw e;
    // A parser tripping over an unexpected shape (TypeError on a missing node, bad JSON) is a format change.
    throw upstreamChanged(op.marketplace, `${op.name} parser failed: ${(e as Error).message}`);
  }
  const checked = op.record.safeParse(record);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    throw upstreamChanged(op.marketplace, `${op.name} record does not match the spec at ${issue?.path.join('.') || '(root)'}: ${issue?.message}`);
  }
  return record;
}
