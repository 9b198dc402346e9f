/**
 * The browser tier: the system Chromium driven by playwright-core, for marketplaces whose bot manager only lets a
 * real browser through. One persistent context (its own Chromium, a temporary profile directory) per marketplace
 * keeps that site's clearance cookies between lookups; a shared, bounded page pool caps the pages open at once; each
 * lookup's signal is its page's deadline (a page still busy then is closed and its slot given back). Every connection
 * the browser makes goes through a guard proxy that only lets the marketplace's own hosts through (SSRF), and
 * images, fonts and media are not loaded at all. Launched lazily on first use; a crashed browser is relaunched on the
 * next lookup.
 */
import type { Logger } from '../../platform/logger.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page, Route } from 'playwright-core';
import { MarketlensError } from '../../errors.js';
import { descriptorOf } from '../../marketplaces/catalog.js';
import type { MarketplaceDescriptor } from '../../marketplaces/descriptor.js';
import { detectBlock } from '../block-detection.js';
import type { BrowserFetchContext, BrowserFetchResult, BrowserFetcher } from '../browser.js';
import type { UpstreamRequest } from '../http-client.js';
import { toRealUrl, toWireUrl } from '../origin.js';
import { needsWarmUp } from '../profiles.js';
import { urlRejection } from '../url-guard.js';
import { cookiePairs, toContextCookies, toSetCookie } from './cookies.js';
import { GuardProxy } from './guard-proxy.js';
import { pinnedIdentity, type BrowserIdentity } from './identity.js';
import { PagePool, type Lease } from './page-pool.js';
import { fetchInPage, navigate, type PageAnswer } from './page-requests.js';
import { untilAborted } from '../../util/until-aborted.js';

/** Flags that keep Chromium quiet on a closed network (no update checks, sync, field trials, QUIC, WebRTC leaks). */
export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
  '--disable-dev-shm-usage',
  // navigator.webdriver stays false: bot managers check it first.
  '--disable-blink-features=AutomationControlled',
  '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
];

/** Not worth the time on a lookup: nothing we parse lives in them. */
const SKIPPED_RESOURCES = new Set(['image', 'font', 'media']);

export interface ChromiumFetcherOptions {
  /** The Chromium binary (MARKETLENS_BROWSER_PATH). */
  executablePath: string;
  /** Pages open at once across all marketplaces (MARKETLENS_BROWSER_POOL_SIZE). */
  poolSize: number;
  /** MARKETLENS_<MP>_ORIGIN per marketplace: the browser goes there instead, exactly as the fast client does. */
  origins?: Partial<Record<string, string | undefined>>;
  /** Larger answers fail like the fast client's body cap (MARKETLENS_MAX_BODY_BYTES). */
  maxBodyBytes?: number;
  /** How long a challenge page may take to pass itself before its answer is returned (and judged a block). */
  challengeWaitMs?: number;
  /** How long to let a loaded document's scripts run (up to its load event) before reading cookies. */
  settleMs?: number;
  launchTimeoutMs?: number;
  identity?: BrowserIdentity;
  logger?: Logger;
}

/** One marketplace's browser: its Chromium with a persistent profile, and the guard proxy in front of it. */
interface Site {
  marketplace: string;
  descriptor: MarketplaceDescriptor;
  context: BrowserContext;
  userDataDir: string;
  proxy: GuardProxy;
  gone: Promise<void>;
}

export interface BrowserStats {
  pool: ReturnType<PagePool<Page>['stats']>;
  /** Chromium launches so far (one per marketplace, plus one per crash). */
  launches: number;
  sites: { marketplace: string; userDataDir: string; refused: { target: string; reason: string }[] }[];
}

export class ChromiumFetcher implements BrowserFetcher {
  readonly pool: PagePool<Page>;
  private readonly sites = new Map<string, Promise<Site>>();
  private readonly live = new Map<string, Site>();
  private launches = 0;
  private closed = false;
  private readonly identity: BrowserIdentity;

  /**
   * @example const browser = new ChromiumFetcher({ executablePath: '/usr/bin/chromium', poolSize: 4 })
   */
  constructor(private readonly options: ChromiumFetcherOptions) {
    this.pool = new PagePool<Page>(options.poolSize);
    this.identity = options.identity ?? pinnedIdentity();
  }

  async fetch(request: UpstreamRequest, ctx: BrowserFetchContext): Promise<BrowserFetchResult> {
    const mp = ctx.marketplace;
    const descriptor = ctx.descriptor ?? descriptorOf(mp);
    ctx.signal.throwIfAborted();
    if (this.closed) throw new MarketlensError('internal', 'the browser tier was shut down');
    const real = new URL(request.url);
    const why = urlRejection(descriptor, real);
    if (why) throw new MarketlensError('internal', `refused to fetch ${real.origin} in the browser: ${why}`);
    const override = this.options.origins?.[mp];
    const wire = toWireUrl(real, override);
    const site = await untilAborted(this.site(descriptor), ctx.signal);
    const handed = [...cookiePairs(ctx.cookies), ...cookiePairs(ownCookieHeader(request))];
    if (handed.length > 0) await site.context.addCookies(toContextCookies(handed, wire));
    const lease = await this.pool.acquire(mp, ctx.signal, () => this.newPage(site));
    return withDeadline(ctx.signal, lease, async (page) => {
      const answer = await this.ask(site, page, request, real, wire);
      const bytes = Buffer.byteLength(answer.body);
      if (this.options.maxBodyBytes !== undefined && bytes > this.options.maxBodyBytes) {
        throw new MarketlensError(
          'upstream_error',
          `${mp} (browser): answer of ${bytes} bytes is over the ${this.options.maxBodyBytes}-byte limit`,
        );
      }
      const finalWire = new URL(answer.url);
      // A redirect off the site ends on the guard's refusal page: an error, not that page.
      const left = this.targetRejection(descriptor, finalWire);
      if (left !== undefined)
        throw new MarketlensError('upstream_error', `${mp} (browser) tried to leave its hosts: ${left}`);
      const finalReal = toRealUrl(answer.url, real, wire, override);
      const cookies = (await site.context.cookies(finalWire.href)).map((c) => toSetCookie(c, override !== undefined));
      return { status: answer.status, url: finalReal.href, headers: answer.headers, body: answer.body, cookies };
    }).catch((e: unknown) => {
      throw this.explain(site, mp, e, ctx.signal);
    });
  }

  /** Shuts every marketplace's browser and removes the temporary profiles. The fetcher is unusable afterwards. */
  async close(): Promise<void> {
    this.closed = true;
    const sites = await Promise.allSettled([...this.sites.values()]);
    await Promise.all(
      sites.map(async (s) => {
        if (s.status !== 'fulfilled') return;
        await s.value.context.close().catch(() => undefined);
        await Promise.race([s.value.gone, new Promise((r) => setTimeout(r, 5_000).unref())]);
        // Once more now that the process has exited: Chromium may still have been writing its profile before.
        await removeProfile(s.value.userDataDir);
      }),
    );
  }

  stats(): BrowserStats {
    return {
      pool: this.pool.stats(),
      launches: this.launches,
      sites: [...this.live.values()].map((s) => ({
        marketplace: s.marketplace,
        userDataDir: s.userDataDir,
        refused: [...s.proxy.refusals],
      })),
    };
  }

  /** A page for one request: navigation for HTML; for JSON (and any POST), fetch() from a page on the site. */
  private async ask(site: Site, page: Page, request: UpstreamRequest, real: URL, wire: URL): Promise<PageAnswer> {
    const method = request.method ?? 'GET';
    const challengeWaitMs = this.options.challengeWaitMs ?? 8_000;
    const isChallenge = (status: number, headers: Record<string, string>, body: string): boolean =>
      detectBlock(status, headers, body, 'html') !== undefined;
    // After a document arrives its scripts still run: bot-manager sensors set their cookies then (PerimeterX `_px3`),
    // and those are the cookies worth handing to the fast client. Bounded, so a heavy page does not cost the lookup.
    const settle = async (): Promise<void> => {
      await page.waitForLoadState('load', { timeout: this.options.settleMs ?? 2_000 }).catch(() => undefined);
    };
    if (request.expect === 'html' && method === 'GET') {
      const answer = await navigate(page, wire, { challengeWaitMs, isChallenge });
      await settle();
      return answer;
    }

    const home = toWireUrl(homeFor(site.descriptor, real), this.options.origins?.[site.marketplace]);
    const call = (): Promise<PageAnswer> =>
      fetchInPage(page, wire, {
        method,
        headers: request.headers ?? {},
        body: request.body,
        accept:
          request.expect === 'json' ? 'application/json, text/plain, */*' : 'text/html,application/xhtml+xml,*/*;q=0.8',
      });
    let onSite = false;
    if (!sameOrigin(page.url(), home)) {
      await navigate(page, home, { challengeWaitMs, isChallenge });
      await settle();
      onSite = true;
    }
    const answer = await call();
    if (onSite || detectBlock(answer.status, answer.headers, answer.body, request.expect) === undefined) return answer;
    // The page's clearance went stale: load the home page again (passing its challenge), then ask once more.
    await navigate(page, home, { challengeWaitMs, isChallenge });
    await settle();
    return call();
  }

  private site(descriptor: MarketplaceDescriptor): Promise<Site> {
    const mp = descriptor.id;
    let site = this.sites.get(mp);
    if (!site) {
      site = this.launch(descriptor);
      this.sites.set(mp, site);
      const mine = site;
      mine.catch(() => {
        if (this.sites.get(mp) === mine) this.sites.delete(mp);
      });
    }
    return site;
  }

  private async launch(descriptor: MarketplaceDescriptor): Promise<Site> {
    const mp = descriptor.id;
    const proxy = await new GuardProxy((u) => this.targetRejection(descriptor, u)).start();
    const userDataDir = await mkdtemp(join(tmpdir(), `marketlens-browser-${mp}-`));
    let context: BrowserContext;
    try {
      // Loaded on first use: the service and CLI start without playwright's weight unless a browser tier runs.
      const { chromium } = await import('playwright-core');
      context = await chromium.launchPersistentContext(userDataDir, {
        executablePath: this.options.executablePath,
        headless: true,
        args: CHROMIUM_FLAGS,
        ignoreDefaultArgs: ['--enable-automation'],
        // `<-loopback>`: even 127.0.0.1 goes through the guard (Chromium bypasses proxies for loopback by default).
        proxy: { server: proxy.origin, bypass: '<-loopback>' },
        // Service workers could fetch outside the page's routing; the sites work without them.
        serviceWorkers: 'block',
        acceptDownloads: false,
        userAgent: this.identity.userAgent,
        locale: 'en-US',
        timeout: this.options.launchTimeoutMs ?? 30_000,
        // The service owns the process signals; close() shuts the browser.
        handleSIGINT: false,
        handleSIGTERM: false,
        handleSIGHUP: false,
      });
    } catch (e) {
      await proxy.stop();
      await removeProfile(userDataDir);
      throw new Error(
        `could not start Chromium (${this.options.executablePath}): ${String((e as Error).message).split('\n')[0]}`,
        { cause: e },
      );
    }
    this.launches++;
    let goneResolve!: () => void;
    const site: Site = {
      marketplace: mp,
      descriptor,
      context,
      userDataDir,
      proxy,
      gone: new Promise<void>((r) => (goneResolve = r)),
    };
    this.live.set(mp, site);
    // A crash or close ends the context: forget it, so the next lookup launches a fresh browser.
    context.on('close', () => {
      void this.forget(site).finally(goneResolve);
    });
    await context.route('**/*', (route) => this.route(site, route));
    // The profile's first tab is not the pool's: close it so the pool counts every page.
    for (const p of context.pages()) await p.close().catch(() => undefined);
    this.options.logger?.debug({ marketplace: mp, userDataDir }, 'browser started');
    return site;
  }

  private async forget(site: Site): Promise<void> {
    const mp = site.marketplace;
    if (this.live.get(mp) === site) {
      this.live.delete(mp);
      this.sites.delete(mp);
    }
    this.pool.drop(mp);
    if (!this.closed)
      this.options.logger?.warn({ marketplace: mp }, 'browser went away; the next lookup starts a new one');
    await site.proxy.stop();
    await removeProfile(site.userDataDir);
  }

  private async newPage(site: Site): Promise<Page> {
    const page = await site.context.newPage();
    // Client hints and navigator.platform say what the User-Agent says (Playwright's userAgent option sets only the UA).
    const cdp = await site.context.newCDPSession(page);
    await cdp.send('Emulation.setUserAgentOverride', {
      userAgent: this.identity.userAgent,
      acceptLanguage: this.identity.acceptLanguage,
      platform: this.identity.platform,
      userAgentMetadata: this.identity.userAgentMetadata,
    });
    return page;
  }

  /** First line of the guard (the proxy is the second, and the only one that sees redirect hops). */
  private async route(site: Site, route: Route): Promise<void> {
    const req = route.request();
    if (SKIPPED_RESOURCES.has(req.resourceType())) return route.abort('blockedbyclient').catch(() => undefined);
    let why: string | undefined;
    try {
      why = this.targetRejection(site.descriptor, new URL(req.url()));
    } catch {
      why = 'not a valid URL';
    }
    if (why !== undefined) {
      site.proxy.note(req.url(), why);
      return route.abort('blockedbyclient').catch(() => undefined);
    }
    return route.continue().catch(() => undefined);
  }

  /** Under an origin override only the override's host:port is reachable; otherwise the marketplace's own https hosts. */
  private targetRejection(descriptor: MarketplaceDescriptor, url: URL): string | undefined {
    const override = this.options.origins?.[descriptor.id];
    if (override !== undefined) {
      const o = new URL(override);
      return url.host === o.host ? undefined : `${url.host} is not ${descriptor.id}'s origin override (${o.host})`;
    }
    return urlRejection(descriptor, url);
  }

  /** Failures as the client understands them: leaving the marketplace is fatal; other browser trouble is a network error. */
  private explain(site: Site, mp: string, e: unknown, signal: AbortSignal): unknown {
    if (e instanceof MarketlensError || signal.aborted) return e;
    const message = String((e as Error)?.message ?? e).split('\n')[0]!;
    const refusal = site.proxy.refusals.at(-1);
    if (
      refusal &&
      /ERR_BLOCKED_BY_CLIENT|ERR_TUNNEL_CONNECTION_FAILED|ERR_PROXY|ERR_ACCESS_DENIED|Failed to fetch/i.test(message)
    ) {
      return new MarketlensError(
        'upstream_error',
        `${mp} (browser) tried to leave its hosts (last refused: ${refusal.target})`,
        { cause: e },
      );
    }
    return new Error(`browser: ${message}`, { cause: e });
  }
}

function removeProfile(dir: string): Promise<void> {
  return rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 }).catch(() => undefined);
}

/** The page a JSON call is made from: the request's own site when it is a web host, else the marketplace's home. */
function homeFor(mp: MarketplaceDescriptor, real: URL): URL {
  const home = new URL(mp.home);
  if (needsWarmUp(mp, real) || real.hostname === home.hostname) return new URL('/', real.origin);
  return home;
}

function sameOrigin(pageUrl: string, target: URL): boolean {
  try {
    return new URL(pageUrl).origin === target.origin;
  } catch {
    return false;
  }
}

function ownCookieHeader(request: UpstreamRequest): string | undefined {
  for (const [k, v] of Object.entries(request.headers ?? {})) if (k.toLowerCase() === 'cookie') return v;
  return undefined;
}

/**
 * Runs `work` on the leased page until `signal` fires. At the deadline the lookup fails at once and the page is
 * killed (closed without unload handlers, whatever it is doing); its slot comes back when it is gone, or after 2 s.
 */
function withDeadline<T>(signal: AbortSignal, lease: Lease<Page>, work: (page: Page) => Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const onAbort = (): void => {
      if (settled) return;
      settled = true;
      reject(signal.reason);
      const closing = lease.page.close({ runBeforeUnload: false }).catch(() => undefined);
      void Promise.race([closing, new Promise((r) => setTimeout(r, 2_000).unref())]).then(() => lease.release(false));
    };
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    work(lease.page).then(
      (v) => {
        if (settled) return;
        settled = true;
        signal.removeEventListener('abort', onAbort);
        lease.release(true);
        resolve(v);
      },
      (e: unknown) => {
        if (settled) return;
        settled = true;
        signal.removeEventListener('abort', onAbort);
        lease.release(false);
        reject(e);
      },
    );
  });
}
