/**
 * What a lookup knows of the caller waiting on it, beyond its deadline: whether it withdrew (an MCP client cancelled
 * its tool call) and whom to tell when the answer has to come from the marketplace (MCP progress notifications).
 *
 * It travels as an AsyncLocalStorage scope, not a parameter: the MCP tools call the service's own HTTP routes
 * in-process (`app.inject`), so auth, limits, caching and history apply as on the API, and the scope reaches every
 * lookup such a call makes (one operation, or the several of a cross-marketplace route) without any route passing it.
 * Only in-process code can open a scope: an HTTP client cannot set one.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { MarketlensError } from '../errors.js';

export interface CallerScope {
  /**
   * Fires when the caller withdrew. The lookup stops waiting at once (`cancelled`), and its upstream work stops when
   * no other caller waits on the same fetch (LookupCache counts who holds a flight).
   */
  withdrawn?: AbortSignal;
  /** Told when a lookup has to wait on a marketplace (no fresh answer in the cache), once per lookup. */
  onUpstreamWait?: (marketplace: string) => void;
}

const scopes = new AsyncLocalStorage<CallerScope>();

/** Runs `work` with `scope` visible to every lookup it starts. */
export function withCallerScope<T>(scope: CallerScope, work: () => T): T {
  return scopes.run(scope, work);
}

/** The scope of the code running now, if any. */
export function currentCallerScope(): CallerScope | undefined {
  return scopes.getStore();
}

/** The error a withdrawn caller's lookup ends with (and the abort reason of upstream work nobody waits on). */
export function cancelledError(marketplace: string): MarketlensError {
  return new MarketlensError('cancelled', `the caller withdrew before ${marketplace} answered`);
}
