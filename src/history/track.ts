/**
 * Tracked products: a lookup (operation + its parameters) refetched on a schedule through the normal lookup path —
 * the cache, in-flight de-duplication, upstream politeness and the owner key's rate limit and quota — so every run
 * is recorded by the history like any live lookup. Stored as `track` jobs of the job runner (src/jobs).
 */
import type { FastifyInstance } from 'fastify';
import { invalidParam, MarketlensError } from '../errors.js';
import { BUILT_IN_REGISTRY, type Registry } from '../operations/registry.js';
import type { Job } from '../jobs/index.js';
import { zodToInvalidParameter } from '../server/problem.js';
import { isScheduledDeferral } from '../upstream/lane.js';
import { recordedOperations } from './extract/index.js';

export const TRACK_KIND = 'track';
export const MIN_INTERVAL_S = 60;
export const DEFAULT_INTERVAL_S = 15 * 60;

/** The `operation` of a product tracked by SKU (src/products/track-sku.ts): each run is one product answer. */
export const PRODUCT_TRACK_OPERATION = 'product';

export interface TrackPayload {
  /** An operation of the app's registry whose lookups the history records, or PRODUCT_TRACK_OPERATION. */
  operation: string;
  /** The lookup's canonical parameters (by SKU: `sku`, `country`, `currency` as the product answer completes them). */
  params: Record<string, unknown>;
  /** The key that asked for it: its limits apply to every refetch; null when added from the CLI. */
  ownerKeyId: string | null;
}

/** `900`, `900s`, `15m`, `1h` → seconds. */
export function parseInterval(v: unknown): number {
  if (v === undefined || v === null) return DEFAULT_INTERVAL_S;
  const m = String(v)
    .trim()
    .match(/^(\d+)\s*(s|m|h)?$/);
  if (!m) throw invalidParam('interval', 'must be seconds (e.g. 900) or a duration such as 15m or 1h');
  const s = Number(m[1]) * { s: 1, m: 60, h: 3600 }[(m[2] ?? 's') as 's' | 'm' | 'h'];
  if (s < MIN_INTERVAL_S) throw invalidParam('interval', `must be at least ${MIN_INTERVAL_S} seconds`);
  if (s > 30 * 86_400) throw invalidParam('interval', 'must be at most 30 days');
  return s;
}

/** `{operation, interval, ...lookup params}` → what to store; the lookup's parameters go through its own schema. */
export function parseTrackRequest(
  body: unknown,
  ownerKeyId: string | null,
  registry: Registry = BUILT_IN_REGISTRY,
): { payload: TrackPayload; intervalMs: number } {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw invalidParam('body', 'must be a JSON object {operation, query, …, interval}');
  const { operation, interval, ...rest } = body as Record<string, unknown>;
  const recorded = recordedOperations(registry);
  const op = typeof operation === 'string' ? registry.operation(operation) : undefined;
  if (!op || !recorded.includes(op.name)) throw invalidParam('operation', `must be one of ${recorded.join(', ')}`);
  // Query-string schemas coerce strings; a JSON number is given to them as its text.
  const asText = Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, typeof v === 'number' ? String(v) : v]));
  const checked = op.params.safeParse(asText);
  if (!checked.success) throw zodToInvalidParameter(checked.error);
  const params = op.canonicalParams ? op.canonicalParams(checked.data) : checked.data;
  return { payload: { operation: op.name, params, ownerKeyId }, intervalMs: parseInterval(interval) * 1000 };
}

/** The `track` job: one lookup through the service, charged to the owner key. */
export function trackHandler(app: FastifyInstance, registry: Registry = BUILT_IN_REGISTRY) {
  return async (job: Job): Promise<void> => {
    const p = job.payload as TrackPayload;
    const bySku = p.operation === PRODUCT_TRACK_OPERATION;
    const op = bySku ? undefined : registry.operation(p.operation);
    if (!op && !bySku) throw new Error(`unknown operation ${p.operation}`);
    if (p.ownerKeyId) {
      const key = app.marketlens.keys.list().find((k) => k.id === p.ownerKeyId);
      if (!key || key.revoked_at)
        throw new MarketlensError('key_disabled', 'the key that tracks this product is revoked');
      const check = await app.marketlens.limits.check(key);
      if (check.error) throw check.error;
    }
    // A cached answer younger than half the interval is a fresh enough observation (another caller or instance
    // just fetched it); otherwise this is a live fetch, recorded through the seam. It waits in the scheduled lane:
    // behind every interactive lookup of the marketplace, in a queue of its own.
    try {
      if (op)
        await app.marketlens.lookup.run(op, p.params, {
          maxAgeSeconds: Math.floor(job.intervalMs / 2000),
          lane: 'scheduled',
        });
      else await app.productWatch.refresh(p.params, job.intervalMs);
    } catch (e) {
      // That queue is full: this slot is skipped, the next interval tries again. The client counted and logged it;
      // thrown, it would be one "scheduled job failed" line per job.
      if (!isScheduledDeferral(e)) throw e;
    }
  };
}

export function trackDoc(job: Job) {
  const p = job.payload as TrackPayload;
  return {
    id: job.id,
    operation: p.operation,
    params: p.params,
    interval: job.intervalMs / 1000,
    // A paused job has no next run until it is resumed.
    nextRunAt: job.pausedAt === null ? new Date(job.nextRunAt).toISOString() : null,
    paused: job.pausedAt !== null,
    lastRunAt: job.lastRunAt === null ? null : new Date(job.lastRunAt).toISOString(),
    lastError: job.lastError,
    runs: job.runs,
    createdAt: new Date(job.createdAt).toISOString(),
  };
}
