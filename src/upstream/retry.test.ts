import { describe, expect, it } from 'vitest';
import { backoffMs, retryAfterSeconds } from './retry.js';

describe('retry timing', () => {
  it('backs off exponentially with jitter, capped', () => {
    expect(backoffMs(1, 100, () => 0)).toBe(50);
    expect(backoffMs(1, 100, () => 1)).toBe(100);
    expect(backoffMs(3, 100, () => 0.5)).toBe(300);
    expect(backoffMs(20, 100, () => 1)).toBe(3000);
  });

  it('reads Retry-After as seconds or an HTTP date', () => {
    expect(retryAfterSeconds('7')).toBe(7);
    expect(retryAfterSeconds(new Date(Date.UTC(2030, 0, 1, 0, 0, 30)).toUTCString(), Date.UTC(2030, 0, 1))).toBe(30);
    expect(retryAfterSeconds('soon')).toBeUndefined();
    expect(retryAfterSeconds(undefined)).toBeUndefined();
  });
});
