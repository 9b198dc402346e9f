import { describe, expect, it } from 'vitest';
import { CHRONO24_DOMAINS, isMarketplaceHost } from './catalog.js';

describe('isMarketplaceHost', () => {
  it('accepts exactly the hosts a marketplace owns, case-insensitively', () => {
    expect(isMarketplaceHost('resale-b', 'www.goat.com')).toBe(true);
    expect(isMarketplaceHost('resale-b', 'WWW.GOAT.COM')).toBe(true);
    expect(isMarketplaceHost('resale-b', 'goat.com.evil.com')).toBe(false);
    expect(isMarketplaceHost('resale-b', 'stockx.com')).toBe(false);
    expect(isMarketplaceHost('sportswear', 'api.nike.com')).toBe(true);
  });

  it('accepts Chrono24 country sites from the known domain list only', () => {
    for (const d of CHRONO24_DOMAINS) expect(isMarketplaceHost('watchmarket', `www.chrono24.${d}`), d).toBe(true);
    for (const h of [
      'www.chrono24.xyz',
      'www.chrono24.io',
      'www.chrono24.co.evil',
      'www.chrono24.com.evil.com',
      'evil.chrono24.com',
    ]) {
      expect(isMarketplaceHost('watchmarket', h), h).toBe(false);
    }
  });
});
