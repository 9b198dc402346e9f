/**
 * Per-marketplace circuit breaker. After `threshold` consecutive failed lookups (blocks, 5xx, timeouts — never a
 * 404, which is a good answer) it opens: requests fail fast with 503 `circuit_open` and Retry-After, sparing the
 * marketplace and the caller's deadline. After `cooldownMs` one probe request goes through (half-open): success
 * closes the circuit, failure re-opens it for another cooldown.
 */
import { MarketlensError } from '../errors.js';

export type CircuitState = 'closed' | 'open' | 'half-open';

/** A read-only view of a breaker (status page): its state and, when open, when the next probe may go (ms epoch). */
export interface CircuitSnapshot {
  state: CircuitState;
  reopensAt: number | null;
}

export class CircuitBreaker {
  private failures = 0;
  private openedAt = 0;
  private state: CircuitState = 'closed';
  private probing = false;

  constructor(
    private readonly name: string,
    private readonly threshold: number,
    private readonly cooldownMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  get current(): CircuitState {
    return this.state;
  }

  /** The state as a caller would find it now (an open circuit past its cooldown reads as half-open). */
  snapshot(): CircuitSnapshot {
    if (this.state === 'closed') return { state: 'closed', reopensAt: null };
    const reopensAt = this.openedAt + this.cooldownMs;
    if (this.state === 'open' && this.now() < reopensAt) return { state: 'open', reopensAt };
    return { state: 'half-open', reopensAt: null };
  }

  /**
   * Admits a request or throws `circuit_open`. Returns true when the admitted request is the half-open probe.
   * @example breaker.admit() // false while closed
   */
  admit(): boolean {
    if (this.state === 'closed') return false;
    const waited = this.now() - this.openedAt;
    if (this.state === 'open' && waited >= this.cooldownMs) this.state = 'half-open';
    if (this.state === 'half-open' && !this.probing) {
      this.probing = true;
      return true;
    }
    const retryAfter = Math.max(1, Math.ceil((this.cooldownMs - waited) / 1000));
    throw new MarketlensError('circuit_open', `${this.name} is failing; not calling it for ${retryAfter} s`, {
      retryAfter,
    });
  }

  success(): void {
    this.failures = 0;
    this.probing = false;
    this.state = 'closed';
  }

  failure(): void {
    this.probing = false;
    this.failures += 1;
    if (this.state === 'half-open' || this.failures >= this.threshold) {
      this.state = 'open';
      this.openedAt = this.now();
    }
  }

  /** A request that ended without a verdict on the marketplace (e.g. the caller's deadline or an SSRF refusal). */
  neutral(): void {
    this.probing = false;
  }
}
