import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';

describe('loadConfig', () => {
  it('works with no variables at all (embedded defaults)', () => {
    const c = loadConfig({});
    expect(c.port).toBe(8080);
    expect(c.host).toBe('0.0.0.0');
    expect(c.dataDir).toBe('./data');
    expect(c.rateLimit).toEqual({ points: 60, durationSeconds: 60 });
    expect(c.redisUrl).toBeUndefined();
    expect(c.ttl).toEqual({ prices: 60, products: 900, searches: 300, finder: 86_400 });
    expect(c.marketplaces['resale-b']?.origin).toBeUndefined();
    expect(c.metricsPublic).toBe(false);
    expect(c.workers).toBe(1);
  });

  it('parses values and per-marketplace variables', () => {
    const c = loadConfig({
      MARKETLENS_PORT: '9001',
      MARKETLENS_RATE_LIMIT: '10/s',
      MARKETLENS_API_KEYS: 'a, b ,',
      MARKETLENS_RESALE_B_ORIGIN: 'http://127.0.0.1:4000',
      MARKETLENS_WATCHMARKET_TIERS: 'direct,proxy',
      MARKETLENS_PROXY_URLS: 'http://p1:8080,socks5://p2:1080',
      MARKETLENS_METRICS_PUBLIC: 'true',
      MARKETLENS_WORKERS: '4',
    });
    expect(c.port).toBe(9001);
    expect(c.rateLimit).toEqual({ points: 10, durationSeconds: 1 });
    expect(c.apiKeys).toEqual(['a', 'b']);
    expect(c.marketplaces['resale-b']?.origin).toBe('http://127.0.0.1:4000');
    expect(c.marketplaces.watchmarket?.tiers).toEqual(['direct', 'proxy']);
    expect(c.proxyUrls).toEqual(['http://p1:8080', 'socks5://p2:1080']);
    expect(c.metricsPublic).toBe(true);
    expect(c.workers).toBe(4);
    expect(loadConfig({ MARKETLENS_RATE_LIMIT: '0' }).rateLimit).toBeNull();
  });

  it.each([
    ['MARKETLENS_PORT', 'eighty'],
    ['MARKETLENS_PORT', '70000'],
    ['MARKETLENS_RATE_LIMIT', '60 per minute'],
    ['MARKETLENS_RESALE_B_ORIGIN', 'http://127.0.0.1:4000/some/path'],
    ['MARKETLENS_REDIS_URL', 'localhost:6379'],
    ['MARKETLENS_UNBLOCKER_URL', 'https://unblock.example/?target='],
    ['MARKETLENS_PROXY_URLS', 'ftp://proxy:21'],
    ['MARKETLENS_LOG_LEVEL', 'loud'],
    ['MARKETLENS_WORKERS', '0'],
    ['MARKETLENS_WORKERS', 'two'],
    ['MARKETLENS_WORKERS', '1.5'],
    ['MARKETLENS_SPORTSWEAR_TIERS', 'direct,teleport'],
  ])('a bad %s (%s) stops start-up with a message naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(name);
  });

  it('rejects unknown MARKETLENS_ variables (typos) by name, and ignores other variables', () => {
    expect(() => loadConfig({ MARKETLENS_PROT: '1' })).toThrow(/MARKETLENS_PROT/);
    expect(loadConfig({ PATH: '/usr/bin', HOME: '/root' }).port).toBe(8080);
  });
});
