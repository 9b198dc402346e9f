/**
 * The cache in front of every lookup: fresh answers from the store, stale-while-revalidate, stale-if-error, and
 * in-flight de-duplication (identical concurrent lookups share one upstream fetch: inside this process through a
 * map of flights, across instances through `RedisFlights`). Rules: see freshness.ts.
 *
 * Whose deadline governs a shared fetch: the caller's who started it, as a time, never as an abort. A flight ends by
 * that caller's deadline (at most MARKETLENS_DEADLINE_MS), so the record it assembles, partial if a part hangs, is
 * ready before that caller stops waiting; no caller's giving up aborts it. Each caller only stops *waiting* when its
 * own deadline passes (then stale-if-error applies, or 504): the first caller going away cannot fail the callers that
 * joined it, and a fetch that completes after its callers gave up still fills the cache.
 */
import type { CacheClass } from '../operations/types.js';
import type { LookupResult } from '../operations/lookup-result.js';
import { MarketlensError } from '../errors.js';
import { isFresh, retainSeconds, servesStaleOn, staleWhileRevalidateSeconds } from './freshness.js';
import type { Logger } from '../platform/logger.js';
import { LOCK_HEARTBEAT_MS, type RedisFlights } from './redis-flights.js';
import { toCachedAnswer, type CachedAnswer, type Store } from './store.js';
import { untilAborted } from '../util/until-aborted.js';
import { cancelledError } from '../operations/caller-scope.js';
import { isScheduledDeferral, type Lane } from '../upstream/lane.js';

/** What a fetch produces: the record's bytes and timings. */
export interface FetchedAnswer {
  body: Buffer;
  fetchedAt: number;
  missingParts: string[];
  upstreamMs?: number;
  parseMs?: number;
}

export interface LookupCacheOptions {
  store: Store;
  /** Cross-instance de-duplication (Redis mode only). */
  flights?: RedisFlights;
  ttl: Record<CacheClass, number>;
  staleIfErrorSeconds: number;
  /** Deadline of one shared fetch (MARKETLENS_DEADLINE_MS). */
  deadlineMs: number;
  log: Logger;
  /** The clock an answer's age is read on: the one the lookup service stamps `fetchedAt` with (default Date.now). */
  now?: () => number;
}

export interface CachedLookupRequest {
  key: string;
  cacheClass: CacheClass;
  /** For error messages. */
  marketplace: string;
  maxAgeSeconds?: number;
  /** The caller's deadline, made on first need (a hit needs none): bounds how long this caller waits, never the shared fetch. */
  deadline: () => AbortSignal;
  /**
   * The same deadline as a time, when the caller has one: a flight this request starts ends by then (not a full
   * MARKETLENS_DEADLINE_MS after it started), so what it assembles is ready before its first caller stops waiting.
   */
  deadlineAt?: number;
  /**
   * The caller's limiter lane (absent: interactive). A flight keeps the lane of the caller who started it; an
   * interactive caller joining a scheduled flight promotes it, so it never waits behind the scheduled lane.
   */
  lane?: Lane;
  fetch: (signal: AbortSignal) => Promise<FetchedAnswer>;
  /**
   * Fires when this caller withdrew (src/operations/caller-scope.ts): it stops waiting at once, and the flight's fetch
   * is aborted when every caller holding it withdrew. A caller without one holds its flight to the end.
   */
  withdrawn?: AbortSignal;
  /** Told when this caller has to wait on a fetch (no usable cached answer). */
  onUpstreamWait?: () => void;
}

/** A fetch in progress, shared by every caller of the same key. */
interface Flight {
  result: Promise<FlightResult>;
  lane?: Lane;
  /** Aborts the fetch: once every caller holding the flight withdrew. */
  controller: AbortController;
  /** Callers waiting on it that have not withdrawn (a background refresh holds its own flight). */
  holders: number;
}

/** The outcome of one flight, shared by everyone who waited for it. */
interface FlightResult {
  answer: CachedAnswer;
  /** True when another instance fetched it (this process only read the store). */
  fromPeer: boolean;
  upstreamMs?: number;
  parseMs?: number;
}

export class LookupCache {
  private readonly flights = new Map<string, Flight>();

  private readonly now: () => number;

  constructor(private readonly o: LookupCacheOptions) {
    this.now = o.now ?? Date.now;
  }

  /**
   * A fresh answer from a store in this process, synchronously, or undefined (then `lookup` decides: stale, shared,
   * fetched, or an answer from a shared store).
   */
  freshHit(key: string, cacheClass: CacheClass, maxAgeSeconds: number | undefined): LookupResult | undefined {
    if (maxAgeSeconds === 0) return undefined;
    const cached = this.o.store.peek?.(key);
    if (!cached || !isFresh(this.now() - cached.fetchedAt, this.o.ttl[cacheClass], maxAgeSeconds)) return undefined;
    return fromCache(cached, 'hit');
  }

  async lookup(req: CachedLookupRequest): Promise<LookupResult> {
    const ttl = this.o.ttl[req.cacheClass];
    const maxAge = req.maxAgeSeconds;
    let cached: CachedAnswer | undefined;
    if (maxAge !== 0) {
      const got = this.o.store.get(req.key);
      cached = got instanceof Promise ? await got : got;
      if (cached) {
        const age = this.now() - cached.fetchedAt;
        if (isFresh(age, ttl, maxAge)) return fromCache(cached, 'hit');
        if (maxAge === undefined && age < (ttl + staleWhileRevalidateSeconds(ttl)) * 1000) {
          this.revalidate(req, cached);
          return fromCache(cached, 'stale');
        }
      }
    }

    const requestedAt = this.now();
    const seen = cached?.fetchedAt;
    // An answer another caller stores meanwhile is good enough if it was fetched after this request arrived, or (unless
    // a live fetch is forced) if it is newer than the one rejected above and fresh for this request.
    const accept = (a: CachedAnswer) =>
      a.fetchedAt >= requestedAt ||
      (maxAge !== 0 && (seen === undefined || a.fetchedAt > seen) && isFresh(this.now() - a.fetchedAt, ttl, maxAge));
    const waitStart = performance.now();
    req.onUpstreamWait?.();
    let joined = true;
    let entry = this.flights.get(req.key);
    if (entry) {
      if (req.lane?.name !== 'scheduled') entry.lane?.promote();
    } else {
      joined = false;
      entry = this.startFlight(req, accept, 0);
    }
    const flight = entry.result;
    const release = hold(entry, req.withdrawn, req.marketplace);
    try {
      const waited = untilAborted(flight, req.deadline(), () => timeoutError(req.marketplace));
      const r = await (req.withdrawn
        ? untilAborted(waited, req.withdrawn, () => cancelledError(req.marketplace))
        : waited);
      if (joined || r.fromPeer) {
        return {
          body: r.answer.body,
          fetchedAt: r.answer.fetchedAt,
          lastModified: r.answer.lastModified,
          cache: 'shared',
          missingParts: r.answer.missingParts,
          waitMs: performance.now() - waitStart,
        };
      }
      return {
        body: r.answer.body,
        fetchedAt: r.answer.fetchedAt,
        lastModified: r.answer.lastModified,
        cache: 'miss',
        missingParts: r.answer.missingParts,
        upstreamMs: r.upstreamMs,
        parseMs: r.parseMs,
      };
    } catch (e) {
      if (isScheduledDeferral(e)) {
        // An interactive caller that joined the scheduled flight just as its lane refused it: fetch for itself.
        if (joined && req.lane?.name !== 'scheduled') return this.lookup(req);
        // A deferred scheduled refresh wants a new observation or nothing: an older answer is neither.
        throw e;
      }
      if (!(e instanceof MarketlensError) || !servesStaleOn(e.code) || this.o.staleIfErrorSeconds <= 0) throw e;
      if (maxAge === 0 || !cached) {
        const got = this.o.store.get(req.key);
        cached = (got instanceof Promise ? await got : got) ?? cached;
      }
      if (cached && this.now() - cached.fetchedAt <= this.o.staleIfErrorSeconds * 1000) {
        this.o.log.warn(
          { key: req.key, code: e.code, detail: e.message },
          'live fetch failed: serving the cached answer (stale-if-error)',
        );
        return fromCache(cached, 'stale');
      }
      throw e;
    } finally {
      release();
    }
  }

  /** Stale-while-revalidate: one background fetch (joined by any lookup meanwhile); its failure only logs. */
  private revalidate(req: CachedLookupRequest, stale: CachedAnswer): void {
    if (this.flights.has(req.key)) return;
    // The refresh holds its own flight: a caller joining it and withdrawing does not stop it.
    this.startFlight(req, (a) => a.fetchedAt > stale.fetchedAt, 1).result.catch((e: unknown) => {
      this.o.log.warn(
        { key: req.key, detail: (e as Error)?.message },
        'background refresh failed; the stale answer stays',
      );
    });
  }

  private startFlight(
    req: CachedLookupRequest,
    accept: (a: CachedAnswer) => boolean,
    /** Holders from the start (1: a background refresh, which nobody can withdraw). */
    holders: number,
  ): Flight {
    const controller = new AbortController();
    const flight = this.runFlight(req, accept, controller).finally(() => {
      if (this.flights.get(req.key)?.result === flight) this.flights.delete(req.key);
    });
    // Every waiter may have given up before it settles: a rejection with nobody waiting is expected, not unhandled.
    flight.catch(() => undefined);
    const entry: Flight = { result: flight, lane: req.lane, controller, holders };
    this.flights.set(req.key, entry);
    return entry;
  }

  private async runFlight(
    req: CachedLookupRequest,
    accept: (a: CachedAnswer) => boolean,
    withdrawal: AbortController,
  ): Promise<FlightResult> {
    // The flight's own deadline, or every holder withdrawing: one signal, linked by hand (see resilient-client.ts on
    // AbortSignal.any under Node 20).
    const deadline = AbortSignal.timeout(
      Math.max(0, Math.min(this.o.deadlineMs, (req.deadlineAt ?? Infinity) - Date.now())),
    );
    const signal = withdrawal.signal;
    if (deadline.aborted) withdrawal.abort(deadline.reason);
    else deadline.addEventListener('abort', () => withdrawal.abort(deadline.reason), { once: true });
    const peers = this.o.flights;
    if (!peers?.usable) return this.fetchAndStore(req, signal);
    const listener = await peers.listen(req.key);
    try {
      for (;;) {
        const token = await peers.tryLock(req.key, req.lane?.name === 'scheduled');
        if (token === undefined) return await this.fetchAndStore(req, signal); // Redis failing: work alone
        if (token !== null) {
          // A peer may have stored an answer between our read and our lock.
          const existing = await this.o.store.get(req.key);
          if (existing && accept(existing)) {
            await peers.release(req.key, token);
            return { answer: existing, fromPeer: true };
          }
          return await this.leadForPeers(req, signal, token);
        }
        if (signal.aborted) throw timeoutError(req.marketplace);
        // A peer's scheduled refresh may wait behind its own instance's interactive lookups: a caller does not wait
        // for it (one extra upstream fetch instead). Checked again after each wait: this flight may be promoted.
        if (req.lane?.name !== 'scheduled' && (await peers.heldForScheduled(req.key)))
          return await this.fetchAndStore(req, signal);
        const outcome = await listener.next(LOCK_HEARTBEAT_MS);
        if (outcome === 'timeout') continue; // the fallback: re-try the lock (a dead leader's lock expires)
        if (!outcome.ok) throw new MarketlensError(outcome.code, outcome.message);
        const stored = await this.o.store.get(req.key);
        if (stored && accept(stored)) return { answer: stored, fromPeer: true };
        // The peer succeeded but its answer is not readable (evicted, not retained): take the lock ourselves.
      }
    } finally {
      listener.close();
    }
  }

  private async leadForPeers(req: CachedLookupRequest, signal: AbortSignal, token: string): Promise<FlightResult> {
    const peers = this.o.flights!;
    const stopKeepAlive = peers.keepAlive(req.key, token);
    try {
      const r = await this.fetchAndStore(req, signal);
      void peers.publish(req.key, { ok: true });
      return r;
    } catch (e) {
      const err = e instanceof MarketlensError ? e : undefined;
      // Withdrawn: nothing to tell the peers; they take the released lock and fetch for themselves.
      if (err?.code === 'cancelled') throw e;
      void peers.publish(
        req.key,
        err
          ? { ok: false, code: err.code, message: err.message }
          : { ok: false, code: 'internal', message: 'the shared fetch failed' },
      );
      throw e;
    } finally {
      stopKeepAlive();
      void peers.release(req.key, token);
    }
  }

  /** Fetches, then stores before anyone is told (peers read the answer from the store). */
  private async fetchAndStore(req: CachedLookupRequest, signal: AbortSignal): Promise<FlightResult> {
    const f = await req.fetch(signal);
    const answer = toCachedAnswer(f.body, f.fetchedAt, f.missingParts);
    const retain = retainSeconds(this.o.ttl[req.cacheClass], this.o.staleIfErrorSeconds);
    const stored = this.o.store.set(req.key, answer, retain);
    if (stored instanceof Promise) await stored;
    return { answer, fromPeer: false, upstreamMs: f.upstreamMs, parseMs: f.parseMs };
  }
}

/**
 * One more caller holding `flight`; returns what to call when it stops waiting. A caller that withdraws lets go, and
 * the last one letting go aborts the fetch: upstream work nobody waits for stops.
 */
function hold(flight: Flight, withdrawn: AbortSignal | undefined, marketplace: string): () => void {
  flight.holders++;
  if (!withdrawn) return () => {};
  const letGo = () => {
    if (--flight.holders === 0) flight.controller.abort(cancelledError(marketplace));
  };
  if (withdrawn.aborted) {
    letGo();
    return () => {};
  }
  withdrawn.addEventListener('abort', letGo, { once: true });
  return () => withdrawn.removeEventListener('abort', letGo);
}

function fromCache(a: CachedAnswer, cache: 'hit' | 'stale'): LookupResult {
  return { body: a.body, fetchedAt: a.fetchedAt, lastModified: a.lastModified, cache, missingParts: a.missingParts };
}

function timeoutError(marketplace: string): MarketlensError {
  return new MarketlensError('upstream_timeout', `${marketplace} did not answer within the deadline`);
}
