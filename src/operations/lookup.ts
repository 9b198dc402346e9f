/**
 * Runs one operation: upstream fetch, then parse, then the record check. The cache layer (src/cache) wraps
 * `fetchAndParse` when one is given (the service); without one (`marketlens lookup`) every run is a live fetch.
 */
import { cacheKey } from '../cache/cache-key.js';
import type { LookupCache } from '../cache/lookup-cache.js';
import { utf8Bytes } from '../cache/store.js';
import type { Config } from '../config.js';
import { MarketlensError, invalidParam } from '../errors.js';
import type { HttpClient, LookupScope, RequestContext } from '../upstream/http-client.js';
import { isScheduledDeferral, Lane, type LaneName } from '../upstream/lane.js';
import type { LiveResults } from './live-results.js';
import type { Marketplace } from '../marketplaces/catalog.js';
import type { AnyOperation, Operation, OperationName, Parsed, ResolveContext } from './types.js';
import type { ParsePool } from './parse-pool.js';
import { cancelledError, currentCallerScope, type CallerScope } from './caller-scope.js';
import { parseChecked } from './parse-checked.js';

export { parseAndCheck, parseChecked } from './parse-checked.js';

import type { LookupResult } from './lookup-result.js';

export type { CacheStatus, LookupResult } from './lookup-result.js';

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
  /**
   * `scheduled` for work nobody waits on (tracked-product refreshes, canaries): it waits behind interactive lookups for
   * the marketplace's upstream slots, in a queue of its own, and is refused with ScheduledDeferral when that is full.
   * Default `interactive`.
   */
  lane?: LaneName;
  /** The caller's withdrawal and progress hooks; by default the scope the call runs in (caller-scope.ts). */
  caller?: CallerScope;
}

export class LookupService {
  constructor(
    private readonly config: Config,
    private readonly http: HttpClient,
    private readonly cache?: LookupCache,
    /** The after-fetch seam: told of every live fetch, successful or not. */
    private readonly liveResults?: LiveResults,
    /** Big bodies are parsed in its worker threads, so the event loop stays free for other requests. */
    private readonly parsePool?: ParsePool,
    /** Stamps each live fetch (`fetchedAt`, a failure's `at`): the core's clock. Deadlines stay on real time. */
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * A fresh cached answer, synchronously, when the in-process cache holds one; undefined otherwise (and for
   * parameters the operation rejects: `run` then answers with the error).
   */
  freshHit(
    op: AnyOperation,
    params: Record<string, unknown>,
    maxAgeSeconds: number | undefined,
  ): LookupResult | undefined {
    if (!this.cache || maxAgeSeconds === 0) return undefined;
    let canonical: Record<string, unknown>;
    try {
      canonical = op.canonicalParams ? op.canonicalParams(params) : params;
    } catch {
      return undefined;
    }
    return this.cache.freshHit(cacheKey(op.name, canonical), op.cacheClass, maxAgeSeconds);
  }

  /**
   * `params` are the validated parameters. Their canonical form (`Operation.canonicalParams`) is computed first — a
   * value the operation cannot use is a 400 here, before any cache lock or upstream request — and names the cache
   * entry; the fetch itself runs on the parameters as given (a GOAT apparel URL still goes straight to /apparel/).
   */
  run(op: AnyOperation, params: Record<string, unknown>, opts: LookupOptions): Promise<LookupResult> {
    // Parameters that name the thing indirectly are resolved first, within the same deadline.
    const resolving = op.resolveParams?.(params, this.resolveContext(opts));
    if (!resolving) return this.runResolved(op, params, opts);
    const deadlineAt = opts.deadlineAt ?? Date.now() + this.config.deadlineMs;
    return resolving.then((resolved) => this.runResolved(op, resolved, { ...opts, deadlineAt }));
  }

  /**
   * How other code runs a lookup on the normal path (cache, de-duplication, limits) and gets its record: operations
   * resolving their parameters, helpers such as `findGoatProduct`.
   */
  resolveContext(opts: LookupOptions = {}): ResolveContext {
    const deadlineAt = opts.deadlineAt ?? (opts.signal ? undefined : Date.now() + this.config.deadlineMs);
    return {
      lookup: async <R>(
        op: Operation<Record<string, unknown>, unknown, R, string, string>,
        raw: Record<string, unknown>,
      ) => {
        const parsed = op.params.safeParse(raw);
        if (!parsed.success) {
          const issue = parsed.error.issues[0];
          throw invalidParam(String(issue?.path[0] ?? 'query'), issue?.message ?? 'is not valid');
        }
        // Not `maxAgeSeconds`: what a resolution finds (which template a SKU names) does not change, so a cached answer
        // serves it even when the caller forces a live lookup of the thing itself.
        const res = await this.run(op, parsed.data, { signal: opts.signal, deadlineAt, lane: opts.lane });
        return JSON.parse(res.body.toString('utf8')) as R;
      },
    };
  }

  private runResolved(op: AnyOperation, params: Record<string, unknown>, opts: LookupOptions): Promise<LookupResult> {
    let canonical: Record<string, unknown>;
    try {
      canonical = op.canonicalParams ? op.canonicalParams(params) : params;
    } catch (e) {
      return Promise.reject(e);
    }
    const deadlineAt = opts.deadlineAt ?? Date.now() + this.config.deadlineMs;
    const deadline = () => opts.signal ?? AbortSignal.timeout(Math.max(0, deadlineAt - Date.now()));
    // One object per lookup that may fetch: the fetch it starts carries it to the limiter, and an interactive caller
    // joining that fetch promotes it there.
    const lane = new Lane(opts.lane);
    const caller = opts.caller ?? currentCallerScope();
    const onUpstreamWait = caller?.onUpstreamWait && (() => caller.onUpstreamWait!(op.marketplace));
    if (!this.cache) {
      onUpstreamWait?.();
      const signal = caller?.withdrawn ? withdrawable(deadline(), caller.withdrawn, op.marketplace) : deadline();
      return this.fetchAndParse(op, params, signal, canonical, deadlineAt, lane);
    }
    return this.cache.lookup({
      withdrawn: caller?.withdrawn,
      onUpstreamWait,
      key: cacheKey(op.name, canonical),
      cacheClass: op.cacheClass,
      marketplace: op.marketplace,
      maxAgeSeconds: opts.maxAgeSeconds,
      deadline,
      deadlineAt,
      lane,
      fetch: (signal) => this.fetchAndParse(op, params, signal, canonical, deadlineAt, lane),
    });
  }

  /**
   * The uncached path: fetch every upstream body, parse, check the record against the spec schema, then tell the
   * after-fetch seam (a LiveResult, or a LiveFailure when the fetch or the parse failed).
   */
  async fetchAndParse(
    op: AnyOperation,
    params: Record<string, unknown>,
    signal: AbortSignal,
    canonical: Record<string, unknown> = params,
    /** When `signal` fires: the deadline of the caller who started this fetch. */
    deadlineAt = Date.now() + this.config.deadlineMs,
    /** The limiter lane of the caller who started this fetch (absent: interactive). */
    lane?: Lane,
  ): Promise<LookupResult> {
    const t0 = performance.now();
    let parsed: Parsed<unknown>;
    let fetchedAt: number;
    let t1 = 0;
    // The client's tally of this lookup's upstream work (requests, bytes, tier), when it keeps one.
    let scope: LookupScope | undefined;
    try {
      const base = { marketplace: op.marketplace, signal, deadlineAt, lane };
      const fetchWith = (ctx: RequestContext) => {
        scope = ctx.scope;
        return op.fetch({ ...ctx, http: this.http, config: this.config }, params);
      };
      // One lookup, however many upstream requests: one limiter slot and one breaker verdict (HttpClient.lookup).
      const bodies = await (this.http.lookup ? this.http.lookup(base, fetchWith) : fetchWith(base));
      fetchedAt = this.now();
      t1 = performance.now();
      parsed = await this.parse(op, bodies, params);
    } catch (e) {
      // A deferred scheduled refresh fetched nothing and failed nothing, and a withdrawn caller's fetch did not fail:
      // the seam hears of live fetches only.
      if (isScheduledDeferral(e) || signal.reason instanceof MarketlensError) throw e;
      this.liveResults?.emitFailure({
        operation: op.name as OperationName,
        params: canonical,
        error: asMarketlensError(e),
        at: this.now(),
        // A parse failure came after the bodies: its upstream time ends there.
        upstreamMs: (t1 || performance.now()) - t0,
        // Refused before `run` (open circuit, full queue): no scope, nothing sent.
        upstreamRequests: scope ? scope.requests : this.http.lookup ? 0 : undefined,
        upstreamBytes: scope?.bytes,
        tier: scope?.tier,
      });
      throw e;
    }
    const body = utf8Bytes(JSON.stringify(parsed.record));
    const t2 = performance.now();
    if (this.liveResults) {
      // The seam's types name the built-in marketplaces; one registered at runtime (a test's toy) passes its own ids.
      const operation = op.name as OperationName;
      const identity = { marketplace: op.marketplace as Marketplace, operation, ...op.identify(parsed.record, params) };
      this.liveResults.emitResult({
        operation,
        params: canonical,
        identity,
        record: parsed.record,
        missing: parsed.missing,
        fetchedAt,
        upstreamMs: t1 - t0,
        upstreamRequests: scope?.requests,
        upstreamBytes: scope?.bytes,
        tier: scope?.tier,
      });
    }
    return { body, fetchedAt, cache: 'miss', upstreamMs: t1 - t0, parseMs: t2 - t1, missingParts: parsed.missing };
  }

  private async parse(op: AnyOperation, bodies: unknown, params: Record<string, unknown>): Promise<Parsed<unknown>> {
    if (this.parsePool?.wants(bodies)) {
      try {
        return await this.parsePool.parse(op.name, bodies, params);
      } catch (e) {
        if (e instanceof MarketlensError) throw e;
        // Bodies a thread cannot receive (not cloneable) or a worker that failed to start: parse here instead.
      }
    }
    return parseChecked(op, bodies, params);
  }
}

/** The deadline, or the caller withdrawing (then aborted with `cancelled`): linked by hand, as the cache does. */
function withdrawable(deadline: AbortSignal, withdrawn: AbortSignal, marketplace: string): AbortSignal {
  const c = new AbortController();
  const onDeadline = () => c.abort(deadline.reason);
  const onWithdrawn = () => c.abort(cancelledError(marketplace));
  if (deadline.aborted) onDeadline();
  else if (withdrawn.aborted) onWithdrawn();
  else {
    deadline.addEventListener('abort', onDeadline, { once: true });
    withdrawn.addEventListener('abort', onWithdrawn, { once: true });
  }
  return c.signal;
}

function asMarketlensError(e: unknown): MarketlensError {
  return e instanceof MarketlensError ? e : new MarketlensError('internal', 'the live fetch failed', { cause: e });
}
