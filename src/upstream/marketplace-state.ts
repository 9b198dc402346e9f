/**
 * What the client keeps per marketplace (its limiter, breaker, proxy pool and one session per fetch tier) and what a
 * session is: a transport session with its cookie jar, proxy and warm-ups.
 */
import type { Config, FetchTier } from '../config.js';
import type { MarketplaceDescriptor } from '../marketplaces/descriptor.js';
import { CircuitBreaker } from './circuit-breaker.js';
import { CookieJar } from './cookie-jar.js';
import { MarketplaceLimiter } from './limiter.js';
import { ProxyPool } from './proxies.js';
import { proxiesFor } from './tiers.js';
import type { Transport, TransportSession } from './transport.js';

export interface Session {
  tier: FetchTier;
  wire: TransportSession;
  jar: CookieJar;
  proxy?: string;
  /** Home-page loads per origin, done or in flight: concurrent lookups share one warm-up instead of a herd. */
  warmed: Map<string, Promise<void>>;
}

export interface MarketplaceState {
  descriptor: MarketplaceDescriptor;
  limiter: MarketplaceLimiter;
  breaker: CircuitBreaker;
  proxies: ProxyPool;
  sessions: Map<FetchTier, Session>;
  /** Scheduled lookups deferred since the last log line about them, and when that line was written. */
  deferrals: { unlogged: number; loggedAt: number };
}

/** A marketplace's fresh state, from its descriptor, its configuration `c` and the service's `config`. */
export function newMarketplaceState(
  descriptor: MarketplaceDescriptor,
  c: Config['marketplaces'][string],
  config: Config,
): MarketplaceState {
  const marketplace = descriptor.id;
  return {
    descriptor,
    limiter: new MarketplaceLimiter(marketplace, {
      concurrency: c.concurrency,
      minIntervalMs: c.minIntervalMs,
      maxQueue: c.maxQueue,
      scheduledMaxQueue: c.scheduledMaxQueue,
    }),
    breaker: new CircuitBreaker(marketplace, config.breaker.threshold, config.breaker.cooldownMs),
    proxies: new ProxyPool(proxiesFor(config, marketplace), config.proxyRestMs),
    sessions: new Map(),
    deferrals: { unlogged: 0, loggedAt: -Infinity },
  };
}

/** A fresh session of a tier: its own transport session (through `proxy` on the proxy tier) and an empty jar. */
export function newSession(transport: Transport, tier: FetchTier, proxy: string | undefined): Session {
  return {
    tier,
    wire: transport.session({ disguise: tier !== 'unblocker', proxyUrl: proxy }),
    jar: new CookieJar(),
    proxy,
    warmed: new Map(),
  };
}
