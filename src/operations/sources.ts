/**
 * Operations that assemble one record from several upstream sources (Best Buy: page, pricing, price view, reviews,
 * official API) fetch them at once; a source failing on the marketplace's side costs only its part of the record.
 * The lookup fails only when every source failed, with the most telling of their errors.
 */
import { ERROR_CODES, MarketlensError, isMarketlensError, type ErrorCode } from '../errors.js';

/** Why one source failed, kept with the bodies so the pure parser can say what is missing. */
export interface SourceError {
  code: ErrorCode;
  message: string;
  /** Upstream HTTP status, when the source answered one. */
  status?: number;
  /** Seconds to wait before retrying (throttling, open circuit). */
  retryAfter?: number;
}

export interface SourcePlan<N extends string> {
  name: N;
  fetch: () => Promise<string>;
}

export interface FetchedSources<N extends string> {
  bodies: Partial<Record<N, string>>;
  errors: Partial<Record<N, SourceError>>;
}

/** Time kept at the end of a lookup for assembling its record (at most a tenth of the time left). */
const ASSEMBLY_RESERVE_MS = 250;

/**
 * The context a lookup's sources are fetched with: they end a reserve before the lookup's deadline, so one that never
 * answers is cut in time for the others to be parsed and sent (its part missing) before the caller stops waiting.
 * @example fetchSources(plan.map((s) => ({ name: s.name, fetch: () => get(sourcesContext(ctx), s.request) })))
 */
export function sourcesContext<C extends { deadlineAt?: number }>(ctx: C, now: () => number = Date.now): C {
  if (ctx.deadlineAt === undefined) return ctx;
  const left = Math.max(0, ctx.deadlineAt - now());
  return { ...ctx, deadlineAt: ctx.deadlineAt - Math.min(ASSEMBLY_RESERVE_MS, left / 10) };
}

/**
 * Fetches every source at once. A failure on the marketplace's side is recorded under the source's name; any other
 * failure (our bug, the caller's deadline) fails the lookup.
 * @example const { bodies, errors } = await fetchSources([{ name: 'reviews', fetch: () => get(reviewsUrl) }])
 */
export async function fetchSources<N extends string>(plan: readonly SourcePlan<N>[]): Promise<FetchedSources<N>> {
  const out: FetchedSources<N> = { bodies: {}, errors: {} };
  await Promise.all(
    plan.map(async ({ name, fetch }) => {
      try {
        out.bodies[name] = await fetch();
      } catch (e) {
        if (!isMarketlensError(e) || !(ERROR_CODES[e.code].upstream || e.code === 'not_found')) throw e;
        out.errors[name] = toSourceError(e);
      }
    }),
  );
  return out;
}

function toSourceError(e: MarketlensError): SourceError {
  return {
    code: e.code,
    message: e.message,
    ...(e.upstreamStatus ? { status: e.upstreamStatus } : {}),
    ...(e.retryAfter !== undefined ? { retryAfter: e.retryAfter } : {}),
  };
}

/** Most useful error first when every source failed. */
const ERROR_ORDER: ErrorCode[] = [
  'not_found',
  'upstream_blocked',
  'circuit_open',
  'overloaded',
  'upstream_timeout',
  'upstream_error',
  'upstream_changed',
];

/**
 * The error to answer when no source gave anything: the most telling failure, naming every source's.
 * @example throw allFailed('electronics', { page: { code: 'upstream_blocked', message: '…' } })
 */
export function allFailed(marketplace: string, failures: Partial<Record<string, SourceError>>): MarketlensError {
  const list = Object.entries(failures).filter((f): f is [string, SourceError] => f[1] !== undefined);
  if (list.length === 0)
    return new MarketlensError('upstream_changed', `${marketplace}: no source carried any product data`);
  const rank = (c: ErrorCode) => (ERROR_ORDER.includes(c) ? ERROR_ORDER.indexOf(c) : ERROR_ORDER.length);
  const [, worst] = list.reduce((a, b) => (rank(b[1].code) < rank(a[1].code) ? b : a));
  const detail = list.map(([name, e]) => `${name}: ${e.message}`).join('; ');
  return new MarketlensError(worst.code, `${marketplace}: every source failed (${detail})`, {
    upstreamStatus: worst.status,
    retryAfter: worst.retryAfter,
  });
}
