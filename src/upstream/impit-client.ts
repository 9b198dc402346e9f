/**
 * The production HttpClient: a Chrome-impersonating client (impit: TLS/HTTP2 fingerprint, pinned Chrome profile)
 * with per-marketplace browser headers, cookie-jar sessions with warm-up, proxy rotation, fetch tiers
 * (direct → proxy → unblocker → browser), retries with backoff inside the lookup's one deadline, block detection,
 * politeness limits, a circuit breaker, HAR recording and metrics. See README.md in this folder for the flow.
 */
import { Impit, type ImpitResponse } from 'impit';
import type { Config, FetchTier } from '../config.js';
import { MarketlensError, isMarketlensError } from '../errors.js';
import type { Marketplace } from '../marketplaces/catalog.js';
import { detectBlock } from './block-detection.js';
import type { BrowserFetcher } from './browser.js';
import { CircuitBreaker, type CircuitSnapshot } from './circuit-breaker.js';
import { CookieJar, mergeCookies } from './cookie-jar.js';
import type { HarRecorder } from './har.js';
import type { HttpClient, RequestContext, UpstreamRequest, UpstreamResponse } from './http-client.js';
import { MarketplaceLimiter } from './limiter.js';
import type { UpstreamObserver } from './observer.js';
import { toRealUrl, toWireUrl } from './origin.js';
import { readCapped } from './plain-client.js';
import { PINNED_BROWSER, PROFILES, browserHeaders, needsWarmUp, warmUpUrl } from './profiles.js';
import { ProxyPool } from './proxies.js';
import { backoffMs, retryAfterSeconds, sleep } from './retry.js';
import { proxiesFor, tiersFor, unblockerUrl } from './tiers.js';
import { assertFetchable, urlRejection } from './url-guard.js';

const MAX_REDIRECTS = 5;

/** Where log lines go (pino-compatible). */
export interface UpstreamLogger {
  warn(obj: Record<string, unknown>, msg: string): void;
  debug(obj: Record<string, unknown>, msg: string): void;
}

export interface ImpitClientOptions {
  /** Metrics hook: one event per wire attempt, plus fast refusals (tier `none`). */
  observer?: UpstreamObserver;
  logger?: UpstreamLogger;
  /** The browser tier's implementation; without one the tier is skipped with a log line. */
  browser?: BrowserFetcher;
  /** Saves each lookup's exchanges as HAR (MARKETLENS_RECORD_DIR, `marketlens record`). */
  recorder?: HarRecorder;
  /** Randomness for backoff jitter (tests pin it). */
  random?: () => number;
}

/**
 * Why an attempt failed, which decides what happens next: retry (same or new session), next tier, or give up.
 * Carried in the error's logContext so the final error still says it in logs.
 */
type FailureKind = 'network' | 'attempt_timeout' | 'http_5xx' | 'throttled' | 'blocked' | 'fatal';

function fail(code: MarketlensError['code'], message: string, kind: FailureKind, extra: { upstreamStatus?: number; retryAfter?: number; snippet?: string; cause?: unknown } = {}): MarketlensError {
  return new MarketlensError(code, message, {
    upstreamStatus: extra.upstreamStatus,
    retryAfter: extra.retryAfter,
    cause: extra.cause,
    logContext: { kind, ...(extra.snippet ? { snippet: extra.snippet.slice(0, 300) } : {}) },
  });
}

function kindOf(e: MarketlensError): FailureKind {
  return (e.logContext?.kind as FailureKind | undefined) ?? 'fatal';
}

/** Failures another session, proxy or tier may get past; a 5xx is the site's own trouble, retried but not escalated. */
const ESCALATES: ReadonlySet<FailureKind> = new Set(['network', 'attempt_timeout', 'throttled', 'blocked']);

interface Session {
  id: number;
  tier: FetchTier;
  impit: Impit;
  jar: CookieJar;
  proxy?: string;
  /** Home-page loads per origin, done or in flight: concurrent lookups share one warm-up instead of a herd. */
  warmed: Map<string, Promise<void>>;
}

interface MarketplaceState {
  limiter: MarketplaceLimiter;
  breaker: CircuitBreaker;
  proxies: ProxyPool;
  sessions: Map<FetchTier, Session>;
}

interface Attempt {
  tier: FetchTier;
  signal: AbortSignal;
  marketplace: Marketplace;
}

export class ImpitHttpClient implements HttpClient {
  private readonly states = new Map<Marketplace, MarketplaceState>();
  private readonly deadlines = new WeakMap<AbortSignal, number>();
  private sessionSeq = 0;
  private readonly random: () => number;

  /**
   * @example const http = new ImpitHttpClient(loadConfig(), { observer: metrics, recorder: new HarRecorder('./har') })
   */
  constructor(
    private readonly config: Config,
    private readonly options: ImpitClientOptions = {},
  ) {
    this.random = options.random ?? Math.random;
  }

  async request(req: UpstreamRequest, ctx: RequestContext): Promise<UpstreamResponse> {
    const mp = ctx.marketplace;
    const st = this.state(mp);
    // A bad operation URL is our bug (500), found before the breaker or any network use.
    assertFetchable(mp, new URL(req.url), 'request');
    const deadlineAt = this.deadlineOf(ctx);
    try {
      st.breaker.admit();
    } catch (e) {
      this.observe(mp, 'none', (e as MarketlensError).code, 0);
      throw e;
    }
    const started = new Date();
    try {
      const res = await st.limiter.run(ctx.signal, () => this.acrossTiers(req, ctx, st, deadlineAt));
      st.breaker.success();
      this.options.recorder?.record(ctx.signal, mp, req, res, started, Date.now() - started.getTime());
      return res;
    } catch (e) {
      const err = this.toError(e, ctx.signal, ctx.signal, mp);
      if (err.code === 'overloaded') this.observe(mp, 'none', err.code, 0);
      if (err.code === 'upstream_error' || err.code === 'upstream_blocked' || err.code === 'upstream_timeout') st.breaker.failure();
      else st.breaker.neutral();
      throw err;
    }
  }

  async close(): Promise<void> {
    this.states.clear();
    await this.options.browser?.close?.();
  }

  /** For health pages and tests: the breaker state of a marketplace. */
  circuitState(mp: Marketplace): string {
    return this.state(mp).breaker.current;
  }

  /** Read-only breaker view for /api/v1/status: state and when an open circuit lets its probe through. */
  circuit(mp: Marketplace): CircuitSnapshot {
    return this.state(mp).breaker.snapshot();
  }

  private state(mp: Marketplace): MarketplaceState {
    let st = this.states.get(mp);
    if (!st) {
      const c = this.config.marketplaces[mp];
      st = {
        limiter: new MarketplaceLimiter(mp, { concurrency: c.concurrency, minIntervalMs: c.minIntervalMs, maxQueue: c.maxQueue }),
        breaker: new CircuitBreaker(mp, this.config.breaker.threshold, this.config.breaker.cooldownMs),
        proxies: new ProxyPool(proxiesFor(this.config, mp), this.config.proxyRestMs),
        sessions: new Map(),
      };
      this.states.set(mp, st);
    }
    return st;
  }

  private deadlineOf(ctx: RequestContext): number {
    if (ctx.deadlineAt !== undefined) return ctx.deadlineAt;
    let at = this.deadlines.get(ctx.signal);
    if (at === undefined) {
      at = Date.now() + this.config.deadlineMs;
      this.deadlines.set(ctx.signal, at);
    }
    return at;
  }

  /** Tiers in the configured order; each gets its retries; blocks and network trouble escalate to the next. */
  private async acrossTiers(req: UpstreamRequest, ctx: RequestContext, st: MarketplaceState, deadlineAt: number): Promise<UpstreamResponse> {
    let last: MarketlensError | undefined;
    for (const tier of tiersFor(this.config, ctx.marketplace)) {
      const skip = this.unavailable(tier, st);
      if (skip) {
        this.options.logger?.warn({ marketplace: ctx.marketplace, tier }, `skipping fetch tier ${tier}: ${skip}`);
        continue;
      }
      try {
        return await this.withRetries(tier, req, ctx, st, deadlineAt);
      } catch (e) {
        const err = this.toError(e, ctx.signal, ctx.signal, ctx.marketplace);
        if (ctx.signal.aborted || !ESCALATES.has(kindOf(err))) throw err;
        this.options.logger?.debug({ marketplace: ctx.marketplace, tier, code: err.code }, `tier ${tier} failed: ${err.message}`);
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

  private async withRetries(tier: FetchTier, req: UpstreamRequest, ctx: RequestContext, st: MarketplaceState, deadlineAt: number): Promise<UpstreamResponse> {
    const { attempts, baseMs } = this.config.retry;
    for (let attempt = 1; ; attempt++) {
      const session = this.session(st, tier);
      try {
        return await this.attempt(tier, session, req, ctx, st, deadlineAt);
      } catch (e) {
        const err = this.toError(e, ctx.signal, ctx.signal, ctx.marketplace);
        if (ctx.signal.aborted) throw err;
        const kind = kindOf(err);
        if (kind === 'fatal') throw err;
        if (kind === 'blocked' || (kind === 'network' && session.proxy)) {
          // The identity is burnt (or its proxy is down): the next attempt gets a fresh jar and the next proxy.
          if (session.proxy) st.proxies.rest(session.proxy);
          if (st.sessions.get(tier) === session) st.sessions.delete(tier);
        }
        if (attempt >= attempts) throw err;
        const delay = kind === 'throttled' && err.retryAfter !== undefined ? err.retryAfter * 1000 : backoffMs(attempt, baseMs, this.random);
        if (Date.now() + delay >= deadlineAt) throw err; // the wait would not fit in the deadline
        this.options.logger?.debug({ marketplace: ctx.marketplace, tier, attempt, delay, code: err.code }, 'retrying upstream request');
        await sleep(delay, ctx.signal);
      }
    }
  }

  private session(st: MarketplaceState, tier: FetchTier): Session {
    let s = st.sessions.get(tier);
    if (!s) {
      const proxy = tier === 'proxy' ? st.proxies.next() : undefined;
      s = {
        id: ++this.sessionSeq,
        tier,
        // The unblocker is an API, not a site: no browser disguise needed there.
        impit: new Impit({
          ...(tier === 'unblocker' ? {} : { browser: PINNED_BROWSER }),
          followRedirects: false,
          ...(proxy ? { proxyUrl: proxy } : {}),
        }),
        jar: new CookieJar(),
        proxy,
        warmed: new Map(),
      };
      st.sessions.set(tier, s);
    }
    return s;
  }

  /** One try on one tier, bounded by the per-attempt timeout and the deadline; observed for metrics. */
  private async attempt(tier: FetchTier, session: Session, req: UpstreamRequest, ctx: RequestContext, st: MarketplaceState, deadlineAt: number): Promise<UpstreamResponse> {
    const mp = ctx.marketplace;
    const perAttempt = this.config.marketplaces[mp].timeoutMs ?? this.config.attemptTimeoutMs;
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
    const signal = controller.signal;
    const a: Attempt = { tier, signal, marketplace: mp };
    const t0 = performance.now();
    try {
      const real = new URL(req.url);
      let res: UpstreamResponse;
      if (tier === 'unblocker') res = await this.viaUnblocker(a, session, st, req, real);
      else if (tier === 'browser') res = await this.viaBrowser(a, st, req, real);
      else {
        if (needsWarmUp(mp, real)) await this.warmedUp(a, session, st, real);
        res = await this.follow(a, session, st, req, real);
      }
      this.judge(mp, req, res);
      // GOAT notes: warm up again after any 403, even one the operation gets to see.
      if (res.status === 403) session.warmed.delete(real.origin);
      this.observe(mp, tier, `http_${res.status}`, (performance.now() - t0) / 1000, Buffer.byteLength(res.body));
      return res;
    } catch (e) {
      const err = this.toError(e, signal, ctx.signal, mp);
      this.observe(mp, tier, err.code, (performance.now() - t0) / 1000);
      throw err;
    } finally {
      clearTimeout(timer);
      ctx.signal.removeEventListener('abort', onDeadline);
    }
  }

  private warmedUp(a: Attempt, session: Session, st: MarketplaceState, real: URL): Promise<void> {
    let done = session.warmed.get(real.origin);
    if (!done) {
      done = this.warmUp(a, session, st, real);
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
  private async warmUp(a: Attempt, session: Session, st: MarketplaceState, real: URL): Promise<void> {
    const home = warmUpUrl(real);
    const res = await this.follow(a, session, st, { url: home.href, expect: 'html', label: 'warm-up' }, home);
    const block = detectBlock(res.status, res.headers, res.body, 'html');
    if (block) throw fail('upstream_blocked', `${a.marketplace} answered the home-page warm-up with a ${block.reason}`, 'blocked', { upstreamStatus: res.status, snippet: res.body });
  }

  /** Sends a request on the wire, following redirects itself so the SSRF guard sees every hop's real URL. */
  private async follow(a: Attempt, session: Session, st: MarketplaceState, req: UpstreamRequest, first: URL): Promise<UpstreamResponse> {
    const override = this.config.marketplaces[a.marketplace].origin;
    let real = first;
    let method = req.method ?? 'GET';
    let body = req.body;
    for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
      if (hop > 0) {
        const why = urlRejection(a.marketplace, real);
        if (why) throw fail('upstream_error', `${a.marketplace} redirected outside its hosts: ${why}`, 'fatal');
      }
      const wire = toWireUrl(real, override);
      const headers = this.headersFor(a.marketplace, session, req, real, method);
      await st.limiter.pace(a.signal);
      const res = await session.impit.fetch(wire.href, { method, headers, ...(body !== undefined ? { body } : {}), redirect: 'manual', signal: a.signal });
      for (const c of res.headers.getSetCookie()) session.jar.setCookie(c, real.href);
      const location = res.headers.get('location');
      if (res.status >= 300 && res.status < 400 && location) {
        await res.body?.cancel().catch(() => undefined);
        real = toRealUrl(location, real, wire, override);
        if (res.status === 303 || ((res.status === 301 || res.status === 302) && method === 'POST')) {
          method = 'GET';
          body = undefined;
        }
        continue;
      }
      const text = await this.readBody(res, a.marketplace);
      return { status: res.status, url: real.href, headers: Object.fromEntries(res.headers), body: text };
    }
    throw fail('upstream_error', `${a.marketplace} redirected more than ${MAX_REDIRECTS} times (redirect loop?)`, 'fatal');
  }

  private headersFor(mp: Marketplace, session: Session, req: UpstreamRequest, real: URL, method: string): Record<string, string> {
    const own = Object.fromEntries(Object.entries(req.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
    const headers: Record<string, string> = { ...browserHeaders(mp, real, req.expect, method), ...own };
    if (req.body !== undefined && method !== 'GET' && !headers['content-type']) headers['content-type'] = 'application/json';
    const csrf = PROFILES[mp].csrfCookie;
    const token = csrf && req.expect === 'json' ? session.jar.get(csrf, real.href) : undefined;
    if (token && !headers['x-csrf-token']) headers['x-csrf-token'] = token;
    const cookie = mergeCookies(session.jar.getCookieString(real.href), own.cookie);
    if (cookie) headers.cookie = cookie;
    else delete headers.cookie;
    return headers;
  }

  private async readBody(res: ImpitResponse, mp: Marketplace): Promise<string> {
    try {
      return await readCapped(res as unknown as Response, this.config.maxBodyBytes);
    } catch (e) {
      if (isMarketlensError(e)) throw fail(e.code, `${mp}: ${e.message}`, 'fatal');
      throw e;
    }
  }

  /** The unblocking service fetches the real URL for us; its host is trusted config, the target was checked already. */
  private async viaUnblocker(a: Attempt, session: Session, st: MarketplaceState, req: UpstreamRequest, real: URL): Promise<UpstreamResponse> {
    const target = unblockerUrl(this.config.unblockerUrl!, real);
    await st.limiter.pace(a.signal);
    const method = req.method ?? 'GET';
    const res = await session.impit.fetch(target, {
      method,
      headers: { accept: req.expect === 'json' ? 'application/json, text/plain, */*' : 'text/html,*/*;q=0.8', ...(req.headers ?? {}) },
      ...(req.body !== undefined ? { body: req.body } : {}),
      redirect: 'manual',
      signal: a.signal,
    });
    const text = await this.readBody(res, a.marketplace);
    return { status: res.status, url: real.href, headers: Object.fromEntries(res.headers), body: text };
  }

  private async viaBrowser(a: Attempt, st: MarketplaceState, req: UpstreamRequest, real: URL): Promise<UpstreamResponse> {
    const direct = this.session(st, 'direct');
    await st.limiter.pace(a.signal);
    const out = await this.options.browser!.fetch(req, { marketplace: a.marketplace, signal: a.signal, cookies: direct.jar.getCookieString(real.href) });
    const final = new URL(out.url);
    const why = urlRejection(a.marketplace, final);
    if (why) throw fail('upstream_error', `${a.marketplace} (browser) ended outside its hosts: ${why}`, 'fatal');
    for (const c of out.cookies ?? []) direct.jar.setCookie(c, final.href);
    const headers = Object.fromEntries(Object.entries(out.headers).map(([k, v]) => [k.toLowerCase(), v]));
    return { status: out.status, url: final.href, headers, body: out.body };
  }

  /** Blocks, throttling and 5xx become failures; every other answer (2xx, 404, other 4xx) goes to the operation. */
  private judge(mp: Marketplace, req: UpstreamRequest, res: UpstreamResponse): void {
    const block = detectBlock(res.status, res.headers, res.body, req.expect);
    const retryAfter = retryAfterSeconds(res.headers['retry-after']);
    if (block) {
      throw fail('upstream_blocked', `${mp} answered with a ${block.reason}`, 'blocked', { upstreamStatus: res.status, retryAfter, snippet: res.body });
    }
    if (res.status === 429) {
      throw fail('upstream_blocked', `${mp} is throttling us (HTTP 429${retryAfter !== undefined ? `, Retry-After ${retryAfter} s` : ''})`, 'throttled', {
        upstreamStatus: 429,
        retryAfter,
      });
    }
    if (res.status >= 500) {
      throw fail('upstream_error', `${mp} answered HTTP ${res.status}`, 'http_5xx', { upstreamStatus: res.status, snippet: res.body });
    }
  }

  /** Any failure → a MarketlensError with its kind: the deadline → upstream_timeout; an attempt's timer → retryable timeout. */
  private toError(e: unknown, attemptSignal: AbortSignal, deadline: AbortSignal, mp: Marketplace): MarketlensError {
    if (isMarketlensError(e)) return e;
    if (deadline.aborted) {
      return fail('upstream_timeout', `${mp} did not answer within the deadline`, 'fatal', { cause: e });
    }
    const name = (e as Error)?.constructor?.name ?? '';
    if (attemptSignal.aborted || /Timeout/.test(name)) {
      return fail('upstream_timeout', `${mp} did not answer within the per-attempt timeout`, 'attempt_timeout', { cause: e });
    }
    const message = String((e as Error)?.message ?? e).split('\n')[0];
    const reason = /Connection refused|ConnectionRefused/i.test(String((e as Error)?.message)) ? 'connection refused'
      : /IncompleteBody|reading response|reset|UnexpectedEof|closed/i.test(String((e as Error)?.message)) ? 'connection broke mid-answer'
      : name.includes('Proxy') ? `proxy failed (${name})`
      : message;
    return fail('upstream_error', `${mp} could not be reached (${reason})`, 'network', { cause: e });
  }

  private observe(marketplace: string, tier: string, outcome: string, seconds: number, bytes?: number): void {
    this.options.observer?.onUpstream({ marketplace, tier, outcome, seconds, bytes });
  }
}
