import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config.js';
import { MARKETPLACE_INFO } from '../marketplaces/catalog.js';
import { tiersFor, unblockerUrl } from './tiers.js';

describe('tiers', () => {
  it('defaults to direct, then proxy and unblocker when configured; a marketplace list wins', () => {
    const noBrowser = { MARKETLENS_BROWSER_PATH: 'none' };
    expect(tiersFor(loadConfig({}), MARKETPLACE_INFO['resale-b'])).toEqual(['direct']);
    const all = loadConfig({
      MARKETLENS_PROXY_URLS: 'http://p:1',
      MARKETLENS_UNBLOCKER_URL: 'https://u.example/?url={url}',
      ...noBrowser,
    });
    expect(tiersFor(all, MARKETPLACE_INFO['resale-a'])).toEqual(['direct', 'proxy', 'unblocker']);
    const own = loadConfig({
      MARKETLENS_RESALE_A_PROXY_URLS: 'socks5://p:1',
      MARKETLENS_WATCHMARKET_TIERS: 'unblocker,browser',
      ...noBrowser,
    });
    expect(tiersFor(own, MARKETPLACE_INFO['resale-a'])).toEqual(['direct', 'proxy']);
    expect(tiersFor(own, MARKETPLACE_INFO['resale-b'])).toEqual(['direct']);
    expect(tiersFor(own, MARKETPLACE_INFO['watchmarket'])).toEqual(['unblocker', 'browser']);
    expect(unblockerUrl('https://u.example/?k=1&url={url}', new URL('https://www.goat.com/a?b=1&c=2'))).toBe(
      'https://u.example/?k=1&url=https%3A%2F%2Fwww.goat.com%2Fa%3Fb%3D1%26c%3D2',
    );
  });
});

describe('browser tier defaults', () => {
  it('ends the Cloudflare and PerimeterX marketplaces with the browser when a Chromium path is set, nowhere else', () => {
    const withBrowser = loadConfig({ MARKETLENS_BROWSER_PATH: '/opt/chromium/chrome' });
    expect(tiersFor(withBrowser, MARKETPLACE_INFO['watchmarket'])).toEqual(['direct', 'browser']);
    expect(tiersFor(withBrowser, MARKETPLACE_INFO['resale-a'])).toEqual(['direct', 'browser']);
    expect(tiersFor(withBrowser, MARKETPLACE_INFO['resale-b'])).toEqual(['direct']);
    expect(tiersFor(withBrowser, MARKETPLACE_INFO['electronics'])).toEqual(['direct']);
    expect(
      tiersFor(
        loadConfig({ MARKETLENS_BROWSER_PATH: '/opt/chromium/chrome', MARKETLENS_RESALE_A_TIERS: 'direct' }),
        MARKETPLACE_INFO['resale-a'],
      ),
    ).toEqual(['direct']);
  });
});
