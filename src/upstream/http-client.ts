/**
 * The seam between operations and the network. Operations describe requests with the real marketplace URLs; an
 * HttpClient enforces the marketplace's host allowlist, applies origin overrides, deadlines, retries and block
 * detection, and returns the answer. It knows nothing of records.
 */
import type { FetchTier } from './fetch-tier.js';
import type { CircuitSnapshot } from './circuit-breaker.js';
import type { Lane } from './lane.js';

export interface UpstreamRequest {
  /** Absolute URL on the real marketplace (https://www.goat.com/…); origin overrides are applied by the client. */
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** What the caller can parse: a JSON API answering HTML is a block, not data. */
  expect: 'json' | 'html';
  /** Short name of the request in logs, metrics and HAR comments, e.g. `buy_bar_data`. */
  label?: string;
  /** GraphQL operation name, used to match HAR replays. */
  operationName?: string;
}

export interface UpstreamResponse {
  status: number;
  /** Final URL after redirects, in real-marketplace form (origin overrides undone). */
  url: string;
  headers: Record<string, string>;
  body: string;
}

/**
 * A lookup in progress, as the client that opened it knows it (opaque to operations). A client that counts its
 * lookup's upstream work keeps the tally here (read by the lookup service for the live-results seam and the status).
 */
export interface LookupScope {
  readonly deadlineAt: number;
  /** Upstream requests sent so far: every attempt on every tier (refusals before the wire excluded). */
  readonly requests?: number;
  /** Body bytes of the answers passed on to the operation. */
  readonly bytes?: number;
  /** The fetch tier of the last answer passed on to the operation; null while none got through. */
  readonly tier?: FetchTier | null;
}

export interface RequestContext {
  /** The marketplace's id (its descriptor's `id`). */
  marketplace: string;
  /** The lookup's one deadline: every attempt, retry and fallback spends from it. */
  signal: AbortSignal;
  /**
   * When the deadline fires (ms since epoch): retries and Retry-After waits that would not fit are skipped. Without
   * it the client assumes MARKETLENS_DEADLINE_MS from the request. A request may set one earlier than its lookup's.
   */
  deadlineAt?: number;
  /** Set by `HttpClient.lookup`: the requests of one lookup share its limiter slot and breaker verdict. */
  scope?: LookupScope;
  /**
   * The lookup's lane in the marketplace's limiter (lane.ts): scheduled refreshes wait behind interactive lookups, in
   * a queue of their own. Absent: interactive.
   */
  lane?: Lane;
}

export interface HttpClient {
  /**
   * Performs one logical request. Resolves with any non-blocked answer, including 404 and other 4xx, so the
   * operation decides what a status means; rejects with a MarketlensError for network failures, timeouts,
   * bot challenges and 5xx after retries.
   */
  request(req: UpstreamRequest, ctx: RequestContext): Promise<UpstreamResponse>;
  /**
   * Runs one lookup's requests as a unit (one concurrency slot, one breaker verdict); `run` gets the context its
   * requests must carry. Optional: without it every request stands alone.
   */
  lookup?<T>(ctx: RequestContext, run: (ctx: RequestContext) => Promise<T>): Promise<T>;
  close?(): Promise<void>;
  /** Lookups waiting for one of the marketplace's upstream slots, by lane (clients without a limiter leave it out). */
  queued?(marketplace: string): { interactive: number; scheduled: number };
  /** The marketplace's circuit breaker, for /api/v1/status (clients without one leave it out). */
  circuit?(marketplace: string): CircuitSnapshot;
}
