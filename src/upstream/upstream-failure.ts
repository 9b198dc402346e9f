/**
 * How an upstream attempt fails: the kind of each failure (carried in the error's logContext) decides what the client
 * does next (retry, a fresh session, the next tier, or give up), and a lookup's final error is one breaker verdict.
 */
import { ERROR_CODES, MarketlensError, isMarketlensError } from '../errors.js';
import type { CircuitBreaker } from './circuit-breaker.js';

/**
 * Why an attempt failed, which decides what happens next: retry (same or new session), next tier, or give up.
 * Carried in the error's logContext so the final error still says it in logs.
 */
export type FailureKind = 'network' | 'attempt_timeout' | 'http_5xx' | 'throttled' | 'blocked' | 'fatal';

export function fail(
  code: MarketlensError['code'],
  message: string,
  kind: FailureKind,
  extra: { upstreamStatus?: number; retryAfter?: number; snippet?: string; cause?: unknown } = {},
): MarketlensError {
  return new MarketlensError(code, message, {
    upstreamStatus: extra.upstreamStatus,
    retryAfter: extra.retryAfter,
    cause: extra.cause,
    logContext: { kind, ...(extra.snippet ? { snippet: extra.snippet.slice(0, 300) } : {}) },
  });
}

export function kindOf(e: MarketlensError): FailureKind {
  return (e.logContext?.kind as FailureKind | undefined) ?? 'fatal';
}

/** Failures another session, proxy or tier may get past; a 5xx is the site's own trouble, retried but not escalated. */
export const ESCALATES: ReadonlySet<FailureKind> = new Set(['network', 'attempt_timeout', 'throttled', 'blocked']);

/** Any failure → a MarketlensError with its kind: the deadline → upstream_timeout; an attempt's timer → retryable timeout. */
export function toUpstreamError(
  e: unknown,
  attemptSignal: AbortSignal,
  deadline: AbortSignal,
  mp: string,
): MarketlensError {
  if (isMarketlensError(e)) return e;
  // Aborted with an error of ours (every caller withdrew: `cancelled`): that, not a timeout of the marketplace.
  if (deadline.aborted && isMarketlensError(deadline.reason)) return deadline.reason;
  if (deadline.aborted) {
    return fail('upstream_timeout', `${mp} did not answer within the deadline`, 'fatal', { cause: e });
  }
  const name = (e as Error)?.constructor?.name ?? '';
  if (attemptSignal.aborted || /Timeout/.test(name)) {
    return fail('upstream_timeout', `${mp} did not answer within the per-attempt timeout`, 'attempt_timeout', {
      cause: e,
    });
  }
  const message = String((e as Error)?.message ?? e).split('\n')[0];
  const reason = /Connection refused|ConnectionRefused/i.test(String((e as Error)?.message))
    ? 'connection refused'
    : /IncompleteBody|reading response|reset|UnexpectedEof|closed/i.test(String((e as Error)?.message))
      ? 'connection broke mid-answer'
      : name.includes('Proxy')
        ? `proxy failed (${name})`
        : message;
  return fail('upstream_error', `${mp} could not be reached (${reason})`, 'network', { cause: e });
}

/**
 * One lookup, one verdict: the marketplace failing (5xx, block, timeout) counts against the breaker; an answer —
 * including not found or a changed format — is the marketplace working; anything else (our refusal, the caller's
 * parameters, an open circuit, a full queue) says nothing about it.
 */
export function recordOutcome(breaker: CircuitBreaker, err: MarketlensError): void {
  if (ERROR_CODES[err.code].marketplaceFailing) breaker.failure();
  else if (err.code === 'not_found' || err.code === 'upstream_changed') breaker.success();
  else breaker.neutral();
}
