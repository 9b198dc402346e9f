/**
 * Tracked products: a lookup (operation + its parameters) refetched on a schedule through the normal lookup path —
 * the cache, in-flight de-duplication, upstream politeness and the owner key's rate limit and quota — so every run
 * is recorded by the history like any live lookup. Stored as `track` jobs of the job runner (src/jobs).
 */
import { invalidParam } from '../errors.js';
import { BUILT_IN_REGISTRY, type Registry } from '../operations/registry.js';
import type { Job } from '../jobs/index.js';
import { zodToInvalidParameter } from '../param-errors.js';
import { recordedOperations } from './extract/index.js';
import type { TrackPayload } from './track-job.js';

export { PRODUCT_TRACK_OPERATION, TRACK_KIND, type TrackPayload } from './track-job.js';
export const MIN_INTERVAL_S = 60;
export const DEFAULT_INTERVAL_S = 15 * 60;

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
