import pino from 'pino';
import type { Config } from '../config.js';
import { MARKETPLACE_DESCRIPTORS } from '../marketplaces/catalog.js';
import type { MarketplaceDescriptor } from '../marketplaces/descriptor.js';
import type { BrowserFetcher } from './browser.js';
import { createBrowserFetcher } from './browser/index.js';
import { HarRecorder, HarReplayClient } from './har.js';
import type { HttpClient } from './http-client.js';
import { ImpitTransport } from './impit-transport.js';
import type { UpstreamObserver } from './observer.js';
import type { Logger } from '../platform/logger.js';
import { ResilientHttpClient } from './resilient-client.js';
import { tiersFor } from './tiers.js';

export interface CreateClientOptions {
  /** The browser tier's implementation; by default Chromium when some marketplace's tiers name `browser`. */
  browser?: BrowserFetcher;
  /** Records lookups as HAR here instead of MARKETLENS_RECORD_DIR (`marketlens record`). */
  recorder?: HarRecorder;
  logger?: Logger;
  /** The marketplaces the client serves (the app's registry); the built-in ones by default. */
  marketplaces?: readonly MarketplaceDescriptor[];
}

/**
 * The HttpClient the configuration asks for; the one place the service and the CLI get theirs:
 * MARKETLENS_REPLAY → answers from a HAR file; otherwise the resilient client over impit (recording when
 * MARKETLENS_RECORD_DIR is set).
 * @example const http = createHttpClient(loadConfig(), metrics)
 */
export function createHttpClient(
  config: Config,
  observer?: UpstreamObserver,
  options: CreateClientOptions = {},
): HttpClient {
  const marketplaces = options.marketplaces ?? MARKETPLACE_DESCRIPTORS;
  if (config.replay) return new HarReplayClient(config.replay, marketplaces);
  // stderr: the CLI prints records on stdout.
  const logger = options.logger ?? pino({ level: config.logLevel, name: 'upstream' }, stderr());
  // Chromium itself starts only on the first lookup that reaches the browser tier.
  const wantsBrowser = marketplaces.some((mp) => tiersFor(config, mp).includes('browser'));
  return new ResilientHttpClient(config, {
    transport: new ImpitTransport(),
    marketplaces,
    observer,
    browser: options.browser ?? (wantsBrowser ? createBrowserFetcher(config, { logger }) : undefined),
    recorder: options.recorder ?? (config.recordDir ? new HarRecorder(config.recordDir) : undefined),
    logger,
  });
}

let stderrStream: pino.DestinationStream | undefined;
/** One stderr stream for every client (tests build many). */
function stderr(): pino.DestinationStream {
  stderrStream ??= pino.destination(2);
  return stderrStream;
}
