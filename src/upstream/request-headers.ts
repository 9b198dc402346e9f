/**
 * The headers of one wire request: the marketplace's browser header set, the operation's own headers over it, the
 * session's cookies merged with any the operation sends, and the CSRF token a JSON call needs.
 */
import type { MarketplaceDescriptor } from '../marketplaces/descriptor.js';
import { mergeCookies, type CookieJar } from './cookie-jar.js';
import type { UpstreamRequest } from './http-client.js';
import { browserHeaders } from './profiles.js';

/** The headers for `req` sent to `real` with `method`, the session's cookie `jar` included. */
export function requestHeaders(
  d: MarketplaceDescriptor,
  jar: CookieJar,
  req: UpstreamRequest,
  real: URL,
  method: string,
): Record<string, string> {
  const own = Object.fromEntries(Object.entries(req.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
  const headers: Record<string, string> = { ...browserHeaders(d, real, req.expect, method), ...own };
  if (req.body !== undefined && method !== 'GET' && !headers['content-type'])
    headers['content-type'] = 'application/json';
  const token = d.csrfCookie && req.expect === 'json' ? jar.get(d.csrfCookie, real.href) : undefined;
  if (token && !headers['x-csrf-token']) headers['x-csrf-token'] = token;
  const cookie = mergeCookies(jar.getCookieString(real.href), own.cookie);
  if (cookie) headers.cookie = cookie;
  else delete headers.cookie;
  return headers;
}
