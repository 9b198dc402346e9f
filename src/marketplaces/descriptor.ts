/**
 * What the upstream layer needs to know about a marketplace, as data: one descriptor per marketplace
 * (`<mp>/marketplace.ts`), listed once in `catalog.ts`. The upstream layer (SSRF guard, browser headers, warm-up,
 * tiers, block judging) reads only this; it names no marketplace itself. See README.md in this folder.
 */
import type { z } from 'zod';
import type { UpstreamRequest, UpstreamResponse } from '../upstream/http-client.js';

/** A bot-manager answer recognised by its body. */
export interface BlockMarker {
  name: string;
  test: RegExp;
  /**
   * True when the marker alone makes a page a block page whatever its status (a challenge page's title). False for
   * traces a real page may also carry (bot-manager scripts, captcha widgets): those count on a block status (401,
   * 403, 429, 503), or on any status when the marketplace's `looksReal` check says the answer is not real data.
   */
  decisive: boolean;
}

export interface MarketplaceDescriptor<Id extends string = string> {
  /** Neutral name used in paths, operation names and logs (`resale-b`). */
  id: Id;
  /** Path segment of the alias routes, the real site's name (Retailed-compatible paths). */
  alias: string;
  /** Human name of the real site, for messages and docs. */
  site: string;
  /** Exact hosts the marketplace's operations may fetch (the SSRF allowlist: adding one is a security decision). */
  hosts: readonly string[];
  /** Infix of its configuration variables: MARKETLENS_<envName>_ORIGIN, _TIERS, … */
  envName: string;
  /**
   * Its own configuration variables beyond the generated MARKETLENS_<envName>_* ones, by full name, parsed with the
   * rest of the configuration; read as `config.marketplaces[id].settings[NAME]`.
   */
  settings?: Readonly<Record<string, z.ZodType>>;
  /** The site's front door: Referer/Origin for API calls made "from" its pages. */
  home: string;
  /**
   * Hosts whose requests need a home-page GET first, for the bot manager's cookies (`www.chrono24.*` matches every
   * country domain). Empty: no warm-up.
   */
  warmUpHosts: readonly string[];
  /** Cookie whose value the site's own scripts echo in `x-csrf-token` on JSON API calls. */
  csrfCookie?: string;
  /** True when only a real browser passes its challenge: the browser tier is then in the default tiers. */
  browserByDefault: boolean;
  /** Statuses the site answers only as a bot wall (StockX's 403): a block whatever the body says. */
  blockStatuses?: readonly number[];
  /** The site's bot-manager pages (generic ones — Cloudflare, PerimeterX, Akamai, captchas — apply to every site). */
  blockMarkers: readonly BlockMarker[];
  /**
   * "Real data looks like this" (a results container, a `__NEXT_DATA__` node): an answer that passes is a block only
   * for a decisive marker (a challenge page's title), never for traces its scripts carry; one that fails is judged by
   * every marker, whatever its status. It never fails a lookup by itself (a changed page is the parser's
   * `upstream_changed`, not a block).
   */
  looksReal?: (res: UpstreamResponse, req: UpstreamRequest) => boolean;
}

/**
 * Keeps a descriptor's id a literal type (the `Marketplace` union is built from the catalog's list).
 * @example export const toy = defineMarketplace({ id: 'toy', alias: 'toyshop', … })
 */
export function defineMarketplace<const Id extends string>(d: MarketplaceDescriptor<Id>): MarketplaceDescriptor<Id> {
  return d;
}

/** True when the body carries a Next.js `__NEXT_DATA__` script (GOAT, Nike, StockX pages). */
export function hasNextData(res: UpstreamResponse): boolean {
  return res.body.includes('id="__NEXT_DATA__"');
}

/** True when the body is a JSON object or array (an API answering data). */
export function isJsonBody(res: UpstreamResponse): boolean {
  return /^\s*[[{]/.test(res.body.slice(0, 64));
}
