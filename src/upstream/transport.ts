/**
 * What the resilient client needs from the wire: sessions that send one request each (no redirect following, no
 * cookies — the client does both, so the SSRF guard and the cookie jar see every hop). The impit transport is the
 * production one (impit-transport.ts); tests may plug in any other.
 */
export interface WireRequest {
  method: string;
  headers: Record<string, string>;
  body?: string;
  signal: AbortSignal;
  /** When `signal` fires at the latest (ms since epoch): the attempt's timeout or the lookup's deadline. */
  endsAt?: number;
}

export interface WireResponse {
  status: number;
  headers: Headers;
  /** The body as text, failing past `maxBytes`. */
  text(maxBytes: number): Promise<string>;
  /** Discards an unread body (redirect hops). */
  cancel(): Promise<void>;
}

export interface TransportSession {
  fetch(url: string, req: WireRequest): Promise<WireResponse>;
}

export interface SessionOptions {
  /** False for the unblocker: an API, not a site, needs no browser disguise. */
  disguise: boolean;
  proxyUrl?: string;
}

export interface Transport {
  /** A fresh identity: its own connections (and TLS fingerprint), through `proxyUrl` when given. */
  session(options: SessionOptions): TransportSession;
}
