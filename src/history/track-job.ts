/**
 * The `track` job of the scheduler: one run of a tracked product — a lookup through the service, charged to the key
 * that tracks it. Free of the HTTP layer: the core registers it on the scheduler (src/core/seams.ts).
 */
import { MarketlensError } from '../errors.js';
import type { KeyStore } from '../keys/key-store.js';
import type { KeyLimits } from '../limits/key-limits.js';
import type { LookupService } from '../operations/lookup.js';
import type { Registry } from '../operations/registry.js';
import type { Job } from '../jobs/index.js';
import { isScheduledDeferral } from '../upstream/lane.js';

export const TRACK_KIND = 'track';

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

export interface TrackJobDeps {
  /** The app's marketplaces and operations (a registry-added one is tracked like a built-in one). */
  registry: Pick<Registry, 'operation'>;
  keys: Pick<KeyStore, 'list'>;
  limits: Pick<KeyLimits, 'check'>;
  lookup: Pick<LookupService, 'run'>;
  /** One run of a product tracked by SKU (the product watch's `refresh`). */
  refreshProduct(params: Record<string, unknown>, intervalMs: number): Promise<void>;
}

/** The `track` job: one lookup through the service, charged to the owner key. */
export function trackHandler(deps: TrackJobDeps) {
  return async (job: Job): Promise<void> => {
    const p = job.payload as TrackPayload;
    const bySku = p.operation === PRODUCT_TRACK_OPERATION;
    const op = bySku ? undefined : deps.registry.operation(p.operation);
    if (!op && !bySku) throw new Error(`unknown operation ${p.operation}`);
    if (p.ownerKeyId) {
      const key = deps.keys.list().find((k) => k.id === p.ownerKeyId);
      if (!key || key.revoked_at)
        throw new MarketlensError('key_disabled', 'the key that tracks this product is revoked');
      const check = await deps.limits.check(key);
      if (check.error) throw check.error;
    }
    // A cached answer younger than half the interval is a fresh enough observation (another caller or instance
    // just fetched it); otherwise this is a live fetch, recorded through the seam. It waits in the scheduled lane:
    // behind every interactive lookup of the marketplace, in a queue of its own.
    try {
      if (op)
        await deps.lookup.run(op, p.params, {
          maxAgeSeconds: Math.floor(job.intervalMs / 2000),
          lane: 'scheduled',
        });
      else await deps.refreshProduct(p.params, job.intervalMs);
    } catch (e) {
      // That queue is full: this slot is skipped, the next interval tries again. The client counted and logged it;
      // thrown, it would be one "scheduled job failed" line per job.
      if (!isScheduledDeferral(e)) throw e;
    }
  };
}
