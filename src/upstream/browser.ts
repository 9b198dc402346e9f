/**
 * The seam for the browser tier (a real Chromium that passes JavaScript challenges; its own issue). A fetcher is
 * registered with the client (`createHttpClient(config, observer, { browser })`; by default Chromium from src/upstream/browser/); when the `browser` tier is configured but
 * none is registered, the client skips the tier with a log line.
 */
import type { MarketplaceDescriptor } from '../marketplaces/descriptor.js';
import type { UpstreamRequest } from './http-client.js';

export interface BrowserFetchContext {
  marketplace: string;
  /** The marketplace's descriptor (home page, hosts); a built-in marketplace's is found by id when absent. */
  descriptor?: MarketplaceDescriptor;
  /** The lookup's deadline (already bounded by the per-attempt timeout). */
  signal: AbortSignal;
  /** Cookies the client's session holds for the request URL (`a=b; c=d`), to start the page with. */
  cookies: string;
}

export interface BrowserFetchResult {
  status: number;
  /** Final URL (real marketplace host); the client re-checks it against the SSRF allowlist. */
  url: string;
  headers: Record<string, string>;
  body: string;
  /**
   * Cookies the browser ended with, as Set-Cookie strings (e.g. a fresh `cf_clearance`): the client stores them in
   * the marketplace's direct session so cheaper tiers can reuse the clearance.
   */
  cookies?: string[];
}

export interface BrowserFetcher {
  fetch(request: UpstreamRequest, ctx: BrowserFetchContext): Promise<BrowserFetchResult>;
  close?(): Promise<void>;
}
