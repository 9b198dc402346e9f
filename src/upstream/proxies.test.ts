import { describe, expect, it } from 'vitest';
import { ProxyPool } from './proxies.js';

describe('ProxyPool', () => {
  it('rotates, rests a failing proxy, and falls back to the one resting longest when all rest', () => {
    let now = 0;
    const pool = new ProxyPool(['http://a:1', 'http://b:1', 'http://c:1'], 1000, () => now);
    expect([pool.next(), pool.next(), pool.next(), pool.next()]).toEqual([
      'http://a:1',
      'http://b:1',
      'http://c:1',
      'http://a:1',
    ]);
    pool.rest('http://b:1');
    expect([pool.next(), pool.next()]).toEqual(['http://c:1', 'http://a:1']);
    now = 1000;
    expect(pool.next()).toBe('http://b:1'); // rested long enough
    pool.rest('http://a:1');
    now = 1100;
    pool.rest('http://b:1');
    pool.rest('http://c:1');
    expect(pool.next()).toBe('http://a:1');
    expect(new ProxyPool([], 1).next()).toBeUndefined();
  });
});
