/**
 * A small cookie jar for one marketplace session (the interface impit takes: setCookie / getCookieString).
 * Enough for bot-manager cookies: name, value, domain (host-only or suffix), path, expiry, Secure. Cookies are
 * kept against the REAL marketplace URL, so origin overrides (tests) see the same cookies the site would.
 * Bounded as browsers bound theirs (an upstream setting new cookies on every answer must not grow the Cookie header
 * and memory without end): at most MAX_PER_DOMAIN per domain and MAX_TOTAL in all, the oldest evicted first, and a
 * cookie whose name and value exceed MAX_COOKIE_BYTES is ignored. The Cookie header sent is capped at
 * MAX_COOKIE_HEADER_BYTES, the oldest cookies left out first.
 */

/** Chrome's and Firefox's limits (RFC 6265 §6.1 asks for at least 50 per domain and 4096 bytes per cookie). */
export const MAX_PER_DOMAIN = 180;
export const MAX_TOTAL = 3000;
export const MAX_COOKIE_BYTES = 4096;
/**
 * The jar's bounds still allow 180 × 4 KB = 720 KB for one site, and no server takes a header that size: nginx
 * refuses a header line over 8 KB (large_client_header_buffers), Node over 16 KB in all, Apache over 8 KB a field.
 * 8 KiB is what the strictest of them take and holds the few small cookies a bot manager sets many times over.
 */
export const MAX_COOKIE_HEADER_BYTES = 8192;
interface StoredCookie {
  name: string;
  value: string;
  domain: string;
  hostOnly: boolean;
  path: string;
  expires?: number;
  secure: boolean;
}

export class CookieJar {
  private cookies: StoredCookie[] = [];

  /**
   * @example jar.setCookie('__cf_bm=abc; Path=/; Domain=.goat.com', 'https://www.goat.com/')
   */
  setCookie(header: string, url: string): void {
    const u = new URL(url);
    const [pair, ...attrs] = header.split(';');
    const eq = pair!.indexOf('=');
    if (eq <= 0) return;
    const c: StoredCookie = {
      name: pair!.slice(0, eq).trim(),
      value: pair!.slice(eq + 1).trim(),
      domain: u.hostname,
      hostOnly: true,
      path: '/',
      secure: false,
    };
    for (const a of attrs) {
      const [k, ...v] = a.split('=');
      const key = k!.trim().toLowerCase();
      const val = v.join('=').trim();
      if (key === 'domain' && val) {
        const d = val.replace(/^\./, '').toLowerCase();
        // A site may only set cookies for itself or a parent domain.
        if (u.hostname !== d && !u.hostname.endsWith(`.${d}`)) return;
        c.domain = d;
        c.hostOnly = false;
      } else if (key === 'path' && val.startsWith('/')) c.path = val;
      else if (key === 'max-age' && /^-?\d+$/.test(val)) c.expires = Date.now() + Number(val) * 1000;
      else if (key === 'expires' && c.expires === undefined && !Number.isNaN(Date.parse(val)))
        c.expires = Date.parse(val);
      else if (key === 'secure') c.secure = true;
    }
    if (Buffer.byteLength(c.name) + Buffer.byteLength(c.value) > MAX_COOKIE_BYTES) return;
    this.cookies = this.cookies.filter((o) => !(o.name === c.name && o.domain === c.domain && o.path === c.path));
    if (c.expires !== undefined && c.expires <= Date.now()) return;
    // Newest last: eviction drops from the front. Expired cookies go first, then the domain's oldest, then the oldest.
    this.cookies.push(c);
    this.evict(c.domain);
  }

  /** Forgets every cookie (a fresh session after the site refused our headers as too large). */
  clear(): void {
    this.cookies = [];
  }

  private evict(domain: string): void {
    const now = Date.now();
    if (this.cookies.length > MAX_TOTAL || this.cookies.filter((o) => o.domain === domain).length > MAX_PER_DOMAIN) {
      this.cookies = this.cookies.filter((o) => o.expires === undefined || o.expires > now);
    }
    let inDomain = this.cookies.filter((o) => o.domain === domain).length;
    if (inDomain > MAX_PER_DOMAIN) {
      this.cookies = this.cookies.filter((o) => o.domain !== domain || inDomain-- <= MAX_PER_DOMAIN);
    }
    if (this.cookies.length > MAX_TOTAL) this.cookies = this.cookies.slice(this.cookies.length - MAX_TOTAL);
  }

  /**
   * The Cookie header a browser would send to `url`: longer paths first, then oldest first (RFC 6265 §5.4), at most
   * MAX_COOKIE_HEADER_BYTES — the newest cookies that fit, as a site's latest cookies are the ones it reads.
   */
  getCookieString(url: string): string {
    const u = new URL(url);
    const now = Date.now();
    // `cookies` is oldest first: take from the newest end while the header stays within the cap.
    const sent: StoredCookie[] = [];
    let bytes = 0;
    for (let i = this.cookies.length - 1; i >= 0; i--) {
      const c = this.cookies[i]!;
      if ((c.expires !== undefined && c.expires <= now) || !this.matches(c, u)) continue;
      const size = Buffer.byteLength(c.name) + 1 + Buffer.byteLength(c.value) + (sent.length > 0 ? 2 : 0);
      if (bytes + size > MAX_COOKIE_HEADER_BYTES) break;
      bytes += size;
      sent.push(c);
    }
    return sent
      .reverse()
      .sort((a, b) => b.path.length - a.path.length)
      .map((c) => `${c.name}=${c.value}`)
      .join('; ');
  }

  get(name: string, url: string): string | undefined {
    const u = new URL(url);
    return this.cookies.find((c) => c.name === name && this.matches(c, u))?.value;
  }

  get size(): number {
    return this.cookies.length;
  }

  private matches(c: StoredCookie, u: URL): boolean {
    const host = u.hostname;
    const domainOk = c.hostOnly ? host === c.domain : host === c.domain || host.endsWith(`.${c.domain}`);
    const pathOk = u.pathname === c.path || u.pathname.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`);
    return domainOk && pathOk && (!c.secure || u.protocol === 'https:');
  }
}

/**
 * Merges an operation's own Cookie header with the jar's (the operation's values win on equal names), within
 * MAX_COOKIE_HEADER_BYTES: the operation's own cookies always go, and the jar's make room for them from the front of
 * its header (the oldest among cookies of one path, which is how sites set them).
 */
export function mergeCookies(jar: string, own: string | undefined): string {
  if (!own) return jar;
  if (!jar) return own;
  const names = new Set(own.split(';').map((p) => p.split('=')[0]!.trim()));
  const kept = jar.split('; ').filter((p) => !names.has(p.split('=')[0]!.trim()));
  let bytes = Buffer.byteLength(own) + kept.reduce((sum, p) => sum + Buffer.byteLength(p) + 2, 0);
  let drop = 0;
  while (bytes > MAX_COOKIE_HEADER_BYTES && drop < kept.length) bytes -= Buffer.byteLength(kept[drop++]!) + 2;
  return [...kept.slice(drop), own].join('; ');
}

/**
 * True when an upstream refused a request because its headers (in practice: our Cookie header) are too large —
 * 431, or nginx's `400 Request Header Or Cookie Too Large`. The session's cookies must then be dropped: every later
 * request would carry the same header and be refused the same way.
 */
export function refusedOversizedHeaders(status: number, body: string): boolean {
  if (status === 431) return true;
  return status === 400 && /(header|cookie)[^<>]{0,40}(too (large|long|big)|exceed|size)/i.test(body.slice(0, 2048));
}
