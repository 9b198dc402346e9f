/**
 * Cookies between the fast client's jar (Cookie / Set-Cookie strings on REAL hosts) and the browser context
 * (Playwright cookie objects on WIRE hosts; the same hosts unless an origin override is set).
 */
import type { Cookie } from 'playwright-core';

export interface CookiePair {
  name: string;
  value: string;
}

/**
 * @example cookiePairs('a=1; cf_clearance=x=y') // [{ name: 'a', value: '1' }, { name: 'cf_clearance', value: 'x=y' }]
 */
export function cookiePairs(header: string | undefined): CookiePair[] {
  if (!header) return [];
  const out: CookiePair[] = [];
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    if (name) out.push({ name, value: part.slice(eq + 1).trim() });
  }
  return out;
}

/**
 * Cookies for `context.addCookies`, scoped to the page origin they will be sent to (host-only, path `/`).
 * @example toContextCookies([{ name: 'a', value: '1' }], new URL('http://127.0.0.1:4000/x'))
 */
export function toContextCookies(pairs: CookiePair[], wire: URL): { name: string; value: string; url: string }[] {
  return pairs.map((p) => ({ name: p.name, value: p.value, url: `${wire.origin}/` }));
}

/**
 * A browser cookie as the Set-Cookie header the fast client's jar takes for the REAL URL. Under an origin
 * override the wire host (127.0.0.1) means nothing on the real host, so the cookie becomes host-only there.
 * @example toSetCookie({ name: 'cf_clearance', value: 'v', domain: '.chrono24.com', path: '/', expires: -1, … }, false)
 *   // 'cf_clearance=v; Path=/; Domain=.chrono24.com; Secure; HttpOnly; SameSite=None'
 */
export function toSetCookie(c: Cookie, overridden: boolean): string {
  const parts = [`${c.name}=${c.value}`, `Path=${c.path || '/'}`];
  // Playwright writes domain cookies with a leading dot; host-only ones without.
  if (!overridden && c.domain.startsWith('.')) parts.push(`Domain=${c.domain}`);
  if (c.expires > 0) parts.push(`Expires=${new Date(c.expires * 1000).toUTCString()}`);
  if (c.secure) parts.push('Secure');
  if (c.httpOnly) parts.push('HttpOnly');
  if (c.sameSite) parts.push(`SameSite=${c.sameSite}`);
  return parts.join('; ');
}
