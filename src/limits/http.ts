/**
 * The HTTP side of limits: the hook that counts each authenticated operation request (after authentication) and
 * sets `RateLimit-*` headers — kept on error responses too, since the error handler reuses the reply — and
 * `GET /api/v1/usage`, the caller's own limits and usage.
 */
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import { z } from 'zod';
import { MarketlensError } from '../errors.js';
import type { StoredKey } from '../keys/key-store.js';
import type { KeyLimits, LimitCheck, RateLimitHeaders } from './key-limits.js';

export const USAGE_PATH = '/api/v1/usage';

/**
 * What a keyed route beyond the lookups costs, for its OpenAPI description. One request each: every one is a single
 * bounded database query or write (a CSV or SVG answer is the same query; a test delivery one queued send, which
 * the delivery loop's per-key share bounds like any other).
 */
export const COSTS_ONE_REQUEST =
  "Counts as 1 request against the key's rate limit and quota (`RateLimit-*` headers on the answer; over them " +
  '429 `rate_limited` or `quota_exceeded` with `Retry-After`).';

type Hook = (req: FastifyRequest, reply: FastifyReply) => Promise<void>;

export function setRateLimitHeaders(reply: FastifyReply, h: RateLimitHeaders | undefined): void {
  if (!h) return;
  reply.header('ratelimit-limit', String(h.limit));
  reply.header('ratelimit-remaining', String(h.remaining));
  reply.header('ratelimit-reset', String(h.reset));
}

/**
 * Authentication, then the key's limits: one onRequest hook for the operation routes. Callback style, and in memory
 * mode without a promise at all: on a cached lookup this hook is most of the work (issue 21).
 * @example app.route({ ..., onRequest: guardWithLimits(identifyCaller(keys), limits) })
 */
export function guardWithLimits(identify: (req: FastifyRequest) => void, limits: KeyLimits): onRequestHookHandler {
  return function guard(req, reply, done) {
    const counted = (req.raw as CountedRequest)[COUNTED];
    if (counted) {
      req.apiKey = counted.key;
      return finish(reply, counted.check, done);
    }
    let check: LimitCheck | Promise<LimitCheck>;
    try {
      identify(req);
      check = limits.check(req.apiKey!);
    } catch (e) {
      return done(e as Error);
    }
    if (check instanceof Promise) check.then((c) => finish(reply, c, done), done);
    else finish(reply, check, done);
  };
}

/**
 * A request the cached-hit path (src/server/hit-path.ts) already counted and then handed to Fastify, because its
 * limits refuse it: the guard answers from this check instead of counting the request twice.
 */
const COUNTED = Symbol('marketlens.counted');
type CountedRequest = IncomingMessage & { [COUNTED]?: { key: StoredKey; check: LimitCheck } };

export function handOverCounted(raw: IncomingMessage, key: StoredKey, check: LimitCheck): void {
  (raw as CountedRequest)[COUNTED] = { key, check };
}

function finish(reply: FastifyReply, check: LimitCheck, done: (err?: Error) => void): void {
  setRateLimitHeaders(reply, check.headers);
  done(check.error);
}

const quotaSchema = z.object({
  limit: z.number().int().nullable().describe('Requests allowed in the window; null = no quota'),
  used: z.number().int().describe('Requests counted in the current window'),
  remaining: z.number().int().nullable().describe('Requests left in the window; null = no quota'),
  reset: z.number().int().describe('Seconds until the window resets'),
  reset_at: z.string().describe('When the window resets (ISO 8601, UTC)'),
});

export const usageSchema = z
  .object({
    plan: z.string().describe('The limits of this key in words, e.g. `60/min, 1000/day`'),
    rate_limit: z
      .string()
      .nullable()
      .describe('Request rate of this key (its own, else the service default); null = unlimited'),
    limit: z.number().int().nullable().describe('Requests allowed in the current rate window; null = unlimited'),
    remaining: z.number().int().nullable().describe('Requests left in the current rate window; null = unlimited'),
    reset: z.number().int().nullable().describe('Seconds until the rate window resets; null = unlimited'),
    daily: quotaSchema.describe('Requests this UTC day').meta({ id: 'UsageDaily' }),
    monthly: quotaSchema.describe('Requests this UTC month').meta({ id: 'UsageMonthly' }),
  })
  .strict()
  .meta({
    id: 'Usage',
    description: "The calling key's limits and usage. Checking it does not count as a request.",
    examples: [
      {
        plan: '60/min, 1000/day',
        rate_limit: '60/min',
        limit: 60,
        remaining: 57,
        reset: 41,
        daily: { limit: 1000, used: 12, remaining: 988, reset: 11520, reset_at: '2026-11-22T00:00:00.000Z' },
        monthly: { limit: null, used: 312, remaining: null, reset: 880320, reset_at: '2026-12-01T00:00:00.000Z' },
      },
    ],
  });

/** GET /api/v1/usage: the caller's own key only. */
export function registerUsageRoute(
  app: FastifyInstance,
  authenticate: Hook,
  limits: KeyLimits,
  problem: z.ZodType,
): void {
  app.route({
    method: 'GET',
    url: USAGE_PATH,
    onRequest: authenticate,
    schema: {
      operationId: 'usage',
      tags: ['Account'],
      summary: "Your key's limits and usage",
      description:
        'Rate limit and daily/monthly quotas of the key in `x-api-key`, with what is used and when each window resets ' +
        '(quota windows are UTC calendar days and months). Every authenticated response also carries ' +
        '`RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset` (seconds) for the policy closest to exhaustion; ' +
        'over a limit the answer is 429 `rate_limited` or `quota_exceeded` with `Retry-After`. Every other keyed ' +
        'route counts as 1 request; this one does not count.',
      security: [{ apiKey: [] }],
      response: { 200: usageSchema, 401: problem, 403: problem },
    },
    handler: async (req, reply) => {
      if (!req.apiKey) throw new MarketlensError('missing_api_key', 'Send your API key in the x-api-key header');
      const report = await limits.report(req.apiKey);
      if (report.limit !== null && report.remaining !== null && report.reset !== null) {
        setRateLimitHeaders(reply, { limit: report.limit, remaining: report.remaining, reset: report.reset });
      }
      return report;
    },
  });
}
