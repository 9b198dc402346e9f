import { describe, expect, it } from 'vitest';
import { CircuitBreaker } from './circuit-breaker.js';

describe('CircuitBreaker', () => {
  it('opens after N consecutive failures, lets one probe through after the cool-down, closes on success', () => {
    let now = 0;
    const b = new CircuitBreaker('resale-b', 3, 10_000, () => now);
    b.failure();
    b.failure();
    b.success(); // consecutive only
    b.failure();
    b.failure();
    expect(b.admit()).toBe(false);
    b.failure();
    expect(b.current).toBe('open');
    expect(() => b.admit()).toThrow(expect.objectContaining({ code: 'circuit_open', retryAfter: 10 }));
    now = 4_000;
    expect(() => b.admit()).toThrow(expect.objectContaining({ retryAfter: 6 }));
    now = 10_000;
    expect(b.admit()).toBe(true); // the probe
    expect(() => b.admit()).toThrow(expect.objectContaining({ code: 'circuit_open' })); // only one probe at a time
    b.success();
    expect(b.current).toBe('closed');
    expect(b.admit()).toBe(false);
  });
});
