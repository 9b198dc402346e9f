/**
 * A small cookie jar for one marketplace session (the interface impit takes: setCookie / getCookieString).
 * Enough for bot-manager cookies: name, value, domain (host-only or suffix), path, expiry, Secure. Cookies are
 * kept against the REAL marketplace URL, so origin overrides (tests) see the same cookies the site would.
 */
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
    this.cookies = this.cookies.filter((o) => !(o.name === c.name && o.domain === c.domain && o.path === c.path));
    if (c.expires === undefined || c.expires > Date.now()) this.cookies.push(c);
  }

  /** The Cookie header a browser would send to `url`. */
  getCookieString(url: string): string {
    const u = new URL(url);
    const now = Date.now();
    return this.cookies
      .filter((c) => (c.expires === undefined || c.expires > now) && this.matches(c, u))
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

/** Merges an operation's own Cookie header with the jar's (the operation's values win on equal names). */
export function mergeCookies(jar: string, own: string | undefined): string {
  if (!own) return jar;
  if (!jar) return own;
  const names = new Set(own.split(';').map((p) => p.split('=')[0]!.trim()));
  const kept = jar.split('; ').filter((p) => !names.has(p.split('=')[0]!.trim()));
  return [...kept, own].join('; ');
}
