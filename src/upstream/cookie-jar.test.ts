import { describe, expect, it } from 'vitest';
import { CookieJar, mergeCookies } from './cookie-jar.js';

describe('CookieJar', () => {
  it('keeps cookies per domain and path, honours expiry, merges with an operation cookie', () => {
    const jar = new CookieJar();
    jar.setCookie('__cf_bm=one; Path=/; Domain=.goat.com; HttpOnly; Secure', 'https://www.goat.com/');
    jar.setCookie('csrf=t0k; Path=/web-api', 'https://www.goat.com/');
    jar.setCookie('gone=1; Max-Age=0', 'https://www.goat.com/');
    jar.setCookie('evil=1; Domain=stockx.com', 'https://www.goat.com/');
    expect(jar.getCookieString('https://www.goat.com/')).toBe('__cf_bm=one');
    expect(jar.getCookieString('https://www.goat.com/web-api/v1/x')).toBe('csrf=t0k; __cf_bm=one');
    expect(jar.getCookieString('http://www.goat.com/')).toBe(''); // Secure
    expect(jar.getCookieString('https://stockx.com/')).toBe('');
    jar.setCookie('__cf_bm=two; Path=/; Domain=goat.com', 'https://www.goat.com/');
    expect(jar.get('__cf_bm', 'https://goat.com/')).toBe('two');
    expect(mergeCookies('a=1; currency=USD', 'currency=GBP; country=GB')).toBe('a=1; currency=GBP; country=GB');
  });
});
