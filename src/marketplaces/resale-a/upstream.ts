/**
 * How we talk to StockX: GraphQL POSTs to `/api/p/e` with the headers the web client ("Iron") sends, and product
 * page GETs. Notes §2.A: without `accept-language` the endpoint answered 404, without a browser UA 403. The browser
 * layer (User-Agent, sec-ch-ua*, sec-fetch-*) is the HTTP client's: it must match its TLS fingerprint, so operations
 * add only what the StockX web app itself adds.
 */
import { randomUUID } from 'node:crypto';
import { MarketlensError } from '../../errors.js';
import type { FetchContext } from '../../operations/types.js';
import { expectOk } from '../../upstream/expect.js';
import type { UpstreamResponse } from '../../upstream/http-client.js';
import { localePathPrefix, type ResaleALocale } from './locale.js';

export const STOCKX_ORIGIN = 'https://stockx.com';
const GRAPHQL_URL = `${STOCKX_ORIGIN}/api/p/e`;

/** Web client build seen in the newest public client (notes §2.A, 2026-01). */
const CLIENT_VERSION = '2026.01.04.01';
/** The site sends a device id and a session id (UUIDs); one pair per process, like one browser. */
const DEVICE_ID = randomUUID();
const SESSION_ID = randomUUID();

/**
 * Headers of a web-client GraphQL request.
 * @example graphqlHeaders('Browse', { country: 'US', currency: 'USD', language: 'en-US' }, 'https://stockx.com/')
 */
function graphqlHeaders(operationName: string, locale: ResaleALocale, referer: string): Record<string, string> {
  return {
    accept: 'application/json',
    'content-type': 'application/json',
    'accept-language': locale.language,
    'apollographql-client-name': 'Iron',
    'apollographql-client-version': CLIENT_VERSION,
    'app-platform': 'Iron',
    'app-version': CLIENT_VERSION,
    'x-operation-name': operationName,
    'selected-country': locale.country,
    'x-stockx-device-id': DEVICE_ID,
    'x-stockx-session-id': SESSION_ID,
    origin: STOCKX_ORIGIN,
    referer,
  };
}

/** Cookies the site keeps the visitor's choices in (notes §5). */
function localeCookies(locale: ResaleALocale): string {
  return [
    `stockx_selected_region=${locale.country}`,
    `stockx_selected_currency=${locale.currency}`,
    `language_code=${locale.language.slice(0, 2)}`,
  ].join('; ');
}

export interface GraphqlCall {
  operationName: string;
  query: string;
  variables: Record<string, unknown>;
  locale: ResaleALocale;
  referer: string;
}

/**
 * POSTs one GraphQL operation and returns the raw body. Statuses: 2xx, and 4xx carrying a GraphQL JSON body
 * (validation errors come back as 400), pass to the parser; anything else is upstream_error.
 */
export async function postGraphql(ctx: FetchContext, call: GraphqlCall): Promise<string> {
  const res = await ctx.http.request(
    {
      url: GRAPHQL_URL,
      method: 'POST',
      headers: graphqlHeaders(call.operationName, call.locale, call.referer),
      body: JSON.stringify({ operationName: call.operationName, query: call.query, variables: call.variables }),
      expect: 'json',
      label: call.operationName,
      operationName: call.operationName,
    },
    ctx,
  );
  // Bot walls (403, PerimeterX pages, HTML where JSON belongs) are judged by the client and never reach here.
  if (res.status >= 200 && res.status < 300) return res.body;
  if (res.status >= 400 && res.status < 500 && /^\s*\{[\s\S]*"errors"/.test(res.body)) return res.body;
  throw new MarketlensError('upstream_error', `resale-a answered HTTP ${res.status} to ${call.operationName}`, {
    upstreamStatus: res.status,
  });
}

/**
 * The product page URL for a slug in a language (`/fr-fr/{slug}` for fr-FR).
 * @example productPageUrl('nike-x-stussy-bucket-hat-black', 'en-US') // 'https://stockx.com/nike-x-stussy-bucket-hat-black'
 */
export function productPageUrl(slug: string, language: string): string {
  return `${STOCKX_ORIGIN}${localePathPrefix(language)}/${encodeURIComponent(slug)}`;
}

/** GETs a product page: 404/410 → not_found. */
export async function fetchProductPage(
  ctx: FetchContext,
  slug: string,
  locale: ResaleALocale,
): Promise<UpstreamResponse> {
  const res = await ctx.http.request(
    {
      url: productPageUrl(slug, locale.language),
      headers: { 'accept-language': locale.language, cookie: localeCookies(locale) },
      expect: 'html',
      label: 'product_page',
    },
    ctx,
  );
  expectOk(res, 'resale-a', `product ${slug}`);
  return res;
}
