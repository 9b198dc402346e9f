/**
 * The browser tier (see chromium-fetcher.ts). Register it with the client: `createHttpClient(config, observer,
 * { browser: createBrowserFetcher(config) })`; it only does work for marketplaces whose MARKETLENS_<MP>_TIERS name
 * `browser`, and Chromium starts on the first such lookup.
 */
import { existsSync } from 'node:fs';
import type { Config } from '../../config.js';
import type { Logger } from '../../platform/logger.js';
import { ChromiumFetcher } from './chromium-fetcher.js';

export { ChromiumFetcher, CHROMIUM_FLAGS, type BrowserStats, type ChromiumFetcherOptions } from './chromium-fetcher.js';
export { PagePool, type Lease, type PoolStats } from './page-pool.js';

/**
 * The configured browser fetcher, or undefined when there is no Chromium (MARKETLENS_BROWSER_PATH unset and no
 * /usr/bin/chromium, or the path does not exist): the client then skips the `browser` tier with a log line.
 * @example const browser = createBrowserFetcher(loadConfig()); const http = createHttpClient(config, metrics, { browser })
 */
export function createBrowserFetcher(config: Config, options: { logger?: Logger } = {}): ChromiumFetcher | undefined {
  const path = config.browserPath;
  if (!path || !existsSync(path)) {
    if (path) options.logger?.warn({ path }, 'MARKETLENS_BROWSER_PATH does not exist; the browser tier is off');
    return undefined;
  }
  return new ChromiumFetcher({
    executablePath: path,
    poolSize: config.browserPoolSize,
    origins: Object.fromEntries(Object.entries(config.marketplaces).map(([mp, c]) => [mp, c.origin])),
    maxBodyBytes: config.maxBodyBytes,
    // A challenge that has not passed itself within most of an attempt's time will not pass in this lookup.
    challengeWaitMs: Math.max(1_000, Math.floor(config.attemptTimeoutMs * 0.8)),
    logger: options.logger,
  });
}
