/**
 * The production HttpClient over any transport: per-marketplace browser headers, cookie-jar sessions with warm-up,
 * proxy rotation, fetch tiers (direct → proxy → unblocker → browser), retries with backoff inside the lookup's one
 * deadline, the one block judge on every answer, politeness limits and a circuit breaker counted per lookup, HAR
 * recording and metrics. What it knows of a marketplace comes from its descriptor. See README.md in this folder.
 */
import type { Logger } from '../platform/logger.js';
import type { Config, FetchTier } from '../config.js';
import { MarketlensError, isMarketlensError } from '../errors.js';
import type { MarketplaceDescriptor } from '../marketplaces/descriptor.js';
import { judgeAnswer } from './block-detection.js';
import type { BrowserFetcher } from './browser.js';
import type { CircuitSnapshot } from './circuit-breaker.js';
import type { HarRecorder } from './har.js';
import type { HttpClient, LookupScope, RequestContext, UpstreamRequest, UpstreamResponse } from './http-client.js';
import { judgeResponse } from './judge-response.js';
import { isScheduledDeferral, type Lane } from './lane.js';
import { newMarketplaceState, newSession, type MarketplaceState, type Session } from './marketplace-state.js';
import type { UpstreamObserver } from './observer.js';
import { toRealUrl, toWireUrl } from './origin.js';
import { needsWarmUp, warmUpUrl } from './profiles.js';
import { requestHeaders } from './request-headers.js';
import { backoffMs, sleep } from './retry.js';
import { tiersFor, unblockerUrl } from './tiers.js';
import type { Transport, WireResponse } from './transport.js';
import { ESCALATES, fail, kindOf, recordOutcome, toUpstreamError } from './upstream-failure.js';
import { assertFetchable, urlRejection } from './url-guard.js';

const MAX_REDIRECTS = 5;
/** Deferred scheduled lookups are logged at most once per this long per marketplace (they are counted each). */
const DEFERRAL_LOG_EVERY_MS = 60_000;

export interface ResilientClientOptions {
  /** The wire. */
  transport: Transport;
  /** Every marketplace the client may be asked about (the registry's descriptors). */
  marketplaces: readonly MarketplaceDescriptor[];
  /** Metrics hook: one event per wire attempt, plus fast refusals (tier `none`). */
  observer?: UpstreamObserver;
  logger?: Logger;
  /** The browser tier's implementation; without one the tier is skipped with a log line. */
  browser?: BrowserFetcher;
  /** Saves each lookup's exchanges as HAR (MARKETLENS_RECORD_DIR, `marketlens record`). */
  recorder?: HarRecorder;
  /** Randomness for backoff jitter (tests pin it). */
  random?: () => number;
}

/**
 * One lookup in progress: it holds one limiter slot and gets one breaker verdict, however many requests it makes. It
 * also tallies the lookup's upstream work (three fields bumped per attempt; no allocation) for the status.
 */
class Scope implements LookupScope {
  requests = 0;
  bytes = 0;
  tier: FetchTier | null = null;

  constructor(
    readonly owner: ResilientHttpClient,
    readonly deadlineAt: number,
    /** The lookup's lane: its requests' wire starts are paced in it too. */
    readonly lane: Lane | undefined,
  ) {}
}

/** What one wire attempt works with. */
interface Attempt {
  tier: FetchTier;
  signal: AbortSignal;
  /** When `signal` fires at the latest (ms since epoch). */
  endsAt: number;
  /** The lookup's lane, for the wire start's turn. */
  lane: Lane | undefined;
  st: MarketplaceState;
  session: Session;
}

export class ResilientHttpClient implements HttpClient {
  private readonly states = new Map<string, MarketplaceState>();
  private readonly descriptors: Map<string, MarketplaceDescriptor>;
  private readonly random: () => number;

  /**
   * @example const http = new ResilientHttpClient(loadConfig(), { transport: new ImpitTransport(), marketplaces: MARKETPLACE_DESCRIPTORS })
   */
  constructor(
    private readonly config: Config,
    private readonly options: ResilientClientOptions,
  ) {
    this.random = options.random ?? Math.random;
    this.descriptors = new Map(options.marketplaces.map((d) => [d.id, d]));
  }

  /**
   * Runs one lookup's requests as a unit: the breaker admits it once, it takes one concurrency slot, and its outcome
   * counts once (a Best Buy lookup of five sources is one lookup, not five). Requests made with the context `run`
   * receives belong to the lookup.
   */
  async lookup<T>(ctx: RequestContext, run: (ctx: RequestContext) => Promise<T>): Promise<T> {
    const st = this.state(ctx.marketplace);
    try {
      st.breaker.admit();
    } catch (e) {
      this.observe(ctx.marketplace, 'none', (e as MarketlensError).code, 0);
      throw e;
    }
    const scope = new Scope(this, ctx.deadlineAt ?? Date.now() + this.config.deadlineMs, ctx.lane);
    try {
      const result = await st.limiter.run(
        ctx.signal,
        () => run({ ...ctx, deadlineAt: scope.deadlineAt, scope }),
        ctx.lane,
      );
      st.breaker.success();
      return result;
    } catch (e) {
      const err = toUpstreamError(e, ctx.signal, ctx.signal, ctx.marketplace);
      if (isScheduledDeferral(err)) this.deferred(st, err.message);
      else if (err.code === 'overloaded') this.observe(ctx.marketplace, 'none', err.code, 0);
      recordOutcome(st.breaker, err);
      throw err;
    }
  }

  /** Lookups waiting for a slot of the marketplace, by lane. */
  queued(marketplace: string): { interactive: number; scheduled: number } {
    return this.state(marketplace).limiter.queued;
  }

  /**
   * A scheduled lookup found its lane full: counted each time (`scheduled_deferred`), logged once, then at most once
   * per DEFERRAL_LOG_EVERY_MS with the count since (a schedule of thousands would otherwise log a line per job).
   */
  private deferred(st: MarketplaceState, why: string): void {
    const marketplace = st.descriptor.id;
    this.observe(marketplace, 'none', 'scheduled_deferred', 0);
    const d = st.deferrals;
    d.unlogged += 1;
    const now = Date.now();
    if (now - d.loggedAt < DEFERRAL_LOG_EVERY_MS) return;
    this.options.logger?.warn(
      { marketplace, deferred: d.unlogged },
      `scheduled lookups deferred to their next interval (${why}); counted as marketlens_upstream_requests_total{outcome="scheduled_deferred"}`,
    );
    d.unlogged = 0;
    d.loggedAt = now;
  }

  async request(req: UpstreamRequest, ctx: RequestContext): Promise<UpstreamResponse> {
    const scope = ctx.scope instanceof Scope && ctx.scope.owner === this ? ctx.scope : undefined;
    // Outside a lookup (a direct call), the request is a lookup of its own.
    if (!scope) return this.lookup(ctx, (inner) => this.request(req, inner));
    const st = this.state(ctx.marketplace);
    // A bad operation URL is our bug (500), found before any network use.
    assertFetchable(st.descriptor, new URL(req.url), 'request');
    const started = new Date();
    // A request may have to end before its lookup does (a source of a multi-source record: operations/sources.ts).
    const deadlineAt = Math.min(scope.deadlineAt, ctx.deadlineAt ?? Infinity);
    const res = await this.acrossTiers(req, ctx, st, deadlineAt);
    this.options.recorder?.record(ctx.signal, ctx.marketplace, req, res, started, Date.now() - started.getTime());
    return res;
  }

  async close(): Promise<void> {
    this.states.clear();
    await this.options.browser?.close?.();
  }

  /** For health pages and tests: the breaker state of a marketplace. */
  circuitState(marketplace: string): string {
    return this.state(marketplace).breaker.current;
  }

  /** Read-only breaker view for /api/v1/status: state and when an open circuit lets its probe through. */
  circuit(marketplace: string): CircuitSnapshot {
    return this.state(marketplace).breaker.snapshot();
  }

  private state(marketplace: string): MarketplaceState {
    let st = this.states.get(marketplace);
    if (!st) {
      const descriptor = this.descriptors.get(marketplace);
      if (!descriptor) throw new MarketlensError('internal', `no descriptor for marketplace ${marketplace}`);
      const c = this.config.marketplaces[marketplace];
      if (!c) throw new MarketlensError('internal', `no configuration for marketplace ${marketplace}`);
      st = newMarketplaceState(descriptor, c, this.config);
      this.states.set(marketplace, st);
    }
    return st;
  }

  /** Tiers in the configured order; each gets its retries; blocks and network trouble escalate to the next. */
  private async acrossTiers(
    req: UpstreamRequest,
    ctx: RequestContext,
    st: MarketplaceState,
    deadlineAt: number,
  ): Promise<UpstreamResponse> {
    let last: MarketlensError | undefined;
    for (const tier of tiersFor(this.config, st.descriptor)) {
      const skip = this.unavailable(tier, st);
      if (skip) {
        this.options.logger?.warn({ marketplace: ctx.marketplace, tier }, `skipping fetch tier ${tier}: ${skip}`);
        continue;
      }
      try {
        return await this.withRetries(tier, req, ctx, st, deadlineAt);
      } catch (e) {
        const err = toUpstreamError(e, ctx.signal, ctx.signal, ctx.marketplace);
        if (ctx.signal.aborted || !ESCALATES.has(kindOf(err))) throw err;
        this.options.logger?.debug(
          { marketplace: ctx.marketplace, tier, code: err.code },
          `tier ${tier} failed: ${err.message}`,
        );
        last = err;
      }
    }
    throw last ?? new MarketlensError('upstream_blocked', `${ctx.marketplace}: no configured fetch tier is available`);
  }

  private unavailable(tier: FetchTier, st: MarketplaceState): string | undefined {
    if (tier === 'proxy' && st.proxies.size === 0) return 'no proxies configured (MARKETLENS_PROXY_URLS)';
    if (tier === 'unblocker' && !this.config.unblockerUrl) return 'MARKETLENS_UNBLOCKER_URL is not set';
    if (tier === 'browser' && !this.options.browser) return 'no browser fetcher is registered';
    return undefined;
  }

  private async withRetries(
    tier: FetchTier,
    req: UpstreamRequest,
    ctx: RequestContext,
    st: MarketplaceState,
    deadlineAt: number,
  ): Promise<UpstreamResponse> {
    const { attempts, baseMs } = this.config.retry;
    for (let attempt = 1; ; attempt++) {
      const session = this.session(st, tier);
      try {
        return await this.attempt(tier, session, req, ctx, st, deadlineAt);
      } catch (e) {
        const err = toUpstreamError(e, ctx.signal, ctx.signal, ctx.marketplace);
        if (ctx.signal.aborted) throw err;
        const kind = kindOf(err);
        if (kind === 'fatal') throw err;
        if (kind === 'blocked' || (kind === 'network' && session.proxy)) {
          // The identity is burnt (or its proxy is down): the next attempt gets a fresh jar and the next proxy.
          if (session.proxy) st.proxies.rest(session.proxy);
          if (st.sessions.get(tier) === session) st.sessions.delete(tier);
        }
        if (attempt >= attempts) throw err;
        const delay =
          kind === 'throttled' && err.retryAfter !== undefined
            ? err.retryAfter * 1000
            : backoffMs(attempt, baseMs, this.random);
        if (Date.now() + delay >= deadlineAt) throw err; // the wait would not fit in the deadline
        this.options.logger?.debug(
          { marketplace: ctx.marketplace, tier, attempt, delay, code: err.code },
          'retrying upstream request',
        );
        await sleep(delay, ctx.signal);
      }
    }
  }

  private session(st: MarketplaceState, tier: FetchTier): Session {
    let s = st.sessions.get(tier);
    if (!s) {
      s = newSession(this.options.transport, tier, tier === 'proxy' ? st.proxies.next() : undefined);
      st.sessions.set(tier, s);
    }
    return s;
  }

  /** One try on one tier, bounded by the per-attempt timeout and the deadline; judged and observed. */
  private async attempt(
    tier: FetchTier,
    session: Session,
    req: UpstreamRequest,
    ctx: RequestContext,
    st: MarketplaceState,
    deadlineAt: number,
  ): Promise<UpstreamResponse> {
    const mp = ctx.marketplace;
    const perAttempt = this.config.marketplaces[mp]?.timeoutMs ?? this.config.attemptTimeoutMs;
    const budget = Math.max(1, Math.min(perAttempt, deadlineAt - Date.now()));
    // A plain controller linked by hand, not AbortSignal.any: impit leaves its abort listener on the signal when a
    // body is read as a stream, and Node 20 keeps composite signals with listeners (and so every response) alive.
    const controller = new AbortController();
    const onDeadline = () => controller.abort(ctx.signal.reason);
    if (ctx.signal.aborted) onDeadline();
    else ctx.signal.addEventListener('abort', onDeadline, { once: true });
    const timer = setTimeout(
      () => controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')),
      budget,
    );
    // request() made sure ctx.scope is this client's own Scope.
    const scope = ctx.scope instanceof Scope ? ctx.scope : undefined;
    const a: Attempt = {
      tier,
      signal: controller.signal,
      endsAt: Date.now() + budget,
      lane: scope?.lane,
      st,
      session,
    };
    const t0 = performance.now();
    try {
      const real = new URL(req.url);
      let res: UpstreamResponse;
      if (tier === 'unblocker') res = await this.viaUnblocker(a, req, real);
      else if (tier === 'browser') res = await this.viaBrowser(a, req, real);
      else {
        if (needsWarmUp(st.descriptor, real)) await this.warmedUp(a, real);
        res = await this.follow(a, req, real);
      }
      judgeResponse(st.descriptor, req, res);
      // GOAT notes: warm up again after any 403, even one the operation gets to see.
      if (res.status === 403) session.warmed.delete(real.origin);
      const bytes = Buffer.byteLength(res.body);
      if (scope) {
        scope.requests += 1;
        scope.bytes += bytes;
        scope.tier = tier;
      }
      this.observe(mp, tier, `http_${res.status}`, (performance.now() - t0) / 1000, bytes);
      return res;
    } catch (e) {
      const err = toUpstreamError(e, controller.signal, ctx.signal, mp);
      if (scope) scope.requests += 1;
      this.observe(mp, tier, err.code, (performance.now() - t0) / 1000);
      throw err;
    } finally {
      clearTimeout(timer);
      ctx.signal.removeEventListener('abort', onDeadline);
    }
  }

  private warmedUp(a: Attempt, real: URL): Promise<void> {
    const { session } = a;
    let done = session.warmed.get(real.origin);
    if (!done) {
      done = this.warmUp(a, real);
      // A failed warm-up is retried by the next attempt, not remembered.
      const mine = done;
      done.catch(() => {
        if (session.warmed.get(real.origin) === mine) session.warmed.delete(real.origin);
      });
      session.warmed.set(real.origin, done);
    }
    return done;
  }

  /**
   * The home page first, as a visitor would arrive: bot managers set their cookies there (notes § Anti-bot).
   * A blocked warm-up is a block; any other answer counts as done.
   */
  private async warmUp(a: Attempt, real: URL): Promise<void> {
    const home = warmUpUrl(real);
    const res = await this.follow(a, { url: home.href, expect: 'html', label: 'warm-up' }, home);
    // The home page is not the data: only decisive markers and block statuses count.
    const block = judgeAnswer(res, { expect: 'html' }, a.st.descriptor, { data: false });
    if (block) {
      throw fail(
        'upstream_blocked',
        `${a.st.descriptor.id} answered the home-page warm-up with a ${block.reason}`,
        'blocked',
        {
          upstreamStatus: res.status,
          snippet: res.body,
        },
      );
    }
  }

  /** Sends a request on the wire, following redirects itself so the SSRF guard sees every hop's real URL. */
  private async follow(a: Attempt, req: UpstreamRequest, first: URL): Promise<UpstreamResponse> {
    const d = a.st.descriptor;
    const override = this.config.marketplaces[d.id]?.origin;
    let real = first;
    let method = req.method ?? 'GET';
    let body = req.body;
    for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
      if (hop > 0) {
        const why = urlRejection(d, real);
        if (why) throw fail('upstream_error', `${d.id} redirected outside its hosts: ${why}`, 'fatal');
      }
      const wire = toWireUrl(real, override);
      const headers = requestHeaders(d, a.session.jar, req, real, method);
      await a.st.limiter.pace(a.signal, a.lane);
      const res = await a.session.wire.fetch(wire.href, {
        method,
        headers,
        ...(body !== undefined ? { body } : {}),
        signal: a.signal,
        endsAt: a.endsAt,
      });
      for (const c of res.headers.getSetCookie()) a.session.jar.setCookie(c, real.href);
      const location = res.headers.get('location');
      if (res.status >= 300 && res.status < 400 && location) {
        await res.cancel();
        real = toRealUrl(location, real, wire, override);
        if (res.status === 303 || ((res.status === 301 || res.status === 302) && method === 'POST')) {
          method = 'GET';
          body = undefined;
        }
        continue;
      }
      const text = await this.readBody(res, d.id);
      return { status: res.status, url: real.href, headers: Object.fromEntries(res.headers), body: text };
    }
    throw fail('upstream_error', `${d.id} redirected more than ${MAX_REDIRECTS} times (redirect loop?)`, 'fatal');
  }

  private async readBody(res: WireResponse, mp: string): Promise<string> {
    try {
      return await res.text(this.config.maxBodyBytes);
    } catch (e) {
      if (isMarketlensError(e)) throw fail(e.code, `${mp}: ${e.message}`, 'fatal');
      throw e;
    }
  }

  /** The unblocking service fetches the real URL for us; its host is trusted config, the target was checked already. */
  private async viaUnblocker(a: Attempt, req: UpstreamRequest, real: URL): Promise<UpstreamResponse> {
    const target = unblockerUrl(this.config.unblockerUrl!, real);
    await a.st.limiter.pace(a.signal, a.lane);
    const res = await a.session.wire.fetch(target, {
      method: req.method ?? 'GET',
      headers: {
        accept: req.expect === 'json' ? 'application/json, text/plain, */*' : 'text/html,*/*;q=0.8',
        ...(req.headers ?? {}),
      },
      ...(req.body !== undefined ? { body: req.body } : {}),
      signal: a.signal,
      endsAt: a.endsAt,
    });
    const text = await this.readBody(res, a.st.descriptor.id);
    return { status: res.status, url: real.href, headers: Object.fromEntries(res.headers), body: text };
  }

  private async viaBrowser(a: Attempt, req: UpstreamRequest, real: URL): Promise<UpstreamResponse> {
    const d = a.st.descriptor;
    const direct = this.session(a.st, 'direct');
    await a.st.limiter.pace(a.signal, a.lane);
    const out = await this.options.browser!.fetch(req, {
      marketplace: d.id,
      descriptor: d,
      signal: a.signal,
      cookies: direct.jar.getCookieString(real.href),
    });
    const final = new URL(out.url);
    const why = urlRejection(d, final);
    if (why) throw fail('upstream_error', `${d.id} (browser) ended outside its hosts: ${why}`, 'fatal');
    for (const c of out.cookies ?? []) direct.jar.setCookie(c, final.href);
    const headers = Object.fromEntries(Object.entries(out.headers).map(([k, v]) => [k.toLowerCase(), v]));
    return { status: out.status, url: final.href, headers, body: out.body };
  }

  private observe(marketplace: string, tier: string, outcome: string, seconds: number, bytes?: number): void {
    this.options.observer?.onUpstream({ marketplace, tier, outcome, seconds, bytes });
  }
}
