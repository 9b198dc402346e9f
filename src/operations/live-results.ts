/**
 * The one seam after a live fetch (ARCHITECTURE "growth rule"): capabilities that observe lookups — price history,
 * alerts, status — subscribe here and never reach into an operation. The lookup service emits a `LiveResult` after
 * every successful live fetch (never for a cache hit, a shared in-flight answer or a stale-if-error answer) and a
 * `LiveFailure` after every failed one. Listeners run synchronously on the lookup path, so they must only enqueue
 * (batch, buffer) and return; a listener that throws is logged and ignored, never fails the lookup.
 */
import type { FetchTier } from '../upstream/fetch-tier.js';
import type { MarketlensError } from '../errors.js';
import type { LookupIdentity } from './lookup-identity.js';
import type { OperationName } from './operation-names.js';

export type { LookupIdentity } from './lookup-identity.js';

/**
 * What the fetch took, per lookup (the status reports it per operation). Set by the lookup service on every event;
 * optional so that hand-made events (tests, replays) need not invent it. The counts come from the client's lookup
 * scope (`HttpClient.lookup`); a client without one leaves them out.
 */
export interface LiveUpstream {
  /** The lookup's whole upstream time in ms: queue wait, every request, retry and tier, until the bodies (or the failure). */
  upstreamMs?: number;
  /** Upstream requests the lookup sent: every attempt on every tier (0 when refused before the wire). */
  upstreamRequests?: number;
  /** Body bytes of the answers passed on to the parser. */
  upstreamBytes?: number;
  /** The fetch tier of the last answer the lookup got; null when none got through. */
  tier?: FetchTier | null;
}

export interface LiveResult extends LiveUpstream {
  operation: OperationName;
  /** The validated (and canonicalised) parameters of the lookup. */
  params: Readonly<Record<string, unknown>>;
  identity: LookupIdentity;
  /** The spec record, already checked against its schema. */
  record: unknown;
  /** Record parts left null because their source failed. */
  missing: readonly string[];
  /** When the upstream fetch completed (ms since epoch). */
  fetchedAt: number;
}

export interface LiveFailure extends LiveUpstream {
  operation: OperationName;
  params: Readonly<Record<string, unknown>>;
  error: MarketlensError;
  /** ms since epoch */
  at: number;
}

export type LiveResultListener = (result: LiveResult) => void;
export type LiveFailureListener = (failure: LiveFailure) => void;

/** A tiny synchronous emitter: no promise, no allocation per lookup beyond the event itself. */
export class LiveResults {
  private readonly resultListeners: LiveResultListener[] = [];
  private readonly failureListeners: LiveFailureListener[] = [];

  constructor(private readonly onListenerError: (e: unknown) => void = () => {}) {}

  onResult(listener: LiveResultListener): () => void {
    this.resultListeners.push(listener);
    return () => remove(this.resultListeners, listener);
  }

  onFailure(listener: LiveFailureListener): () => void {
    this.failureListeners.push(listener);
    return () => remove(this.failureListeners, listener);
  }

  emitResult(result: LiveResult): void {
    for (const l of this.resultListeners) this.call(l, result);
  }

  emitFailure(failure: LiveFailure): void {
    for (const l of this.failureListeners) this.call(l, failure);
  }

  private call<T>(listener: (e: T) => void, event: T): void {
    try {
      listener(event);
    } catch (e) {
      this.onListenerError(e);
    }
  }
}

function remove<T>(list: T[], item: T): void {
  const i = list.indexOf(item);
  if (i >= 0) list.splice(i, 1);
}
