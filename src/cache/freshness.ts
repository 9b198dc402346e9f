/**
 * When a cached answer may be used (CONTRACT §1, §3). All ages are measured from the upstream fetch (`fetchedAt`).
 *
 * - fresh: younger than the operation's TTL, or — when the caller sends `max_age` — no older than `max_age` seconds
 *   (the caller's bound replaces the TTL, in both directions). `max_age=0` / `Cache-Control: no-cache` never reads.
 * - stale-while-revalidate: without `max_age`, an answer past its TTL by at most `staleWhileRevalidateSeconds(ttl)`
 *   (one TTL, capped at 5 minutes) is sent at once with `X-Cache: stale` while one background fetch refreshes it.
 * - stale-if-error: when the live fetch fails with an upstream-side error, an answer no older than
 *   MARKETLENS_STALE_IF_ERROR is sent with `X-Cache: stale` instead of the error. Never for 400/404: those are
 *   answers about the request, not failures.
 */
import { ERROR_CODES, type ErrorCode } from '../errors.js';

const SWR_CAP_SECONDS = 300;

/** @example staleWhileRevalidateSeconds(60) // 60; staleWhileRevalidateSeconds(86400) // 300 */
export function staleWhileRevalidateSeconds(ttlSeconds: number): number {
  return Math.min(ttlSeconds, SWR_CAP_SECONDS);
}

/** How long the store keeps an answer: as long as any rule above can still use it. */
export function retainSeconds(ttlSeconds: number, staleIfErrorSeconds: number): number {
  return Math.max(ttlSeconds + staleWhileRevalidateSeconds(ttlSeconds), staleIfErrorSeconds);
}

/** Failures on the upstream side, for which an older answer beats an error (ERROR_CODES' `servesStale`). */
export function servesStaleOn(code: ErrorCode): boolean {
  return ERROR_CODES[code].servesStale;
}

/**
 * Is an answer `ageMs` old fresh for this request?
 * @example isFresh(30_000, 60, undefined) // true (TTL 60 s); isFresh(30_000, 60, 10) // false (max_age=10)
 */
export function isFresh(ageMs: number, ttlSeconds: number, maxAgeSeconds: number | undefined): boolean {
  // max_age counts whole seconds, like the Age header the caller sees.
  if (maxAgeSeconds !== undefined) return Math.floor(ageMs / 1000) <= maxAgeSeconds;
  return ageMs < ttlSeconds * 1000;
}
