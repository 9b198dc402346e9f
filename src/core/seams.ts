/**
 * Every subscription between the core's parts, in one block: who hears what, in the order they hear it. A part never
 * reaches for another's registration; what flows between them is written here.
 */
import { trackHandler, TRACK_KIND } from '../history/track-job.js';
import { CANARY_KIND } from '../status/canaries.js';
import type { UpstreamObserver } from '../upstream/observer.js';
import type { Core } from './types.js';

export function wireSeams(core: Core, upstreamObservers: UpstreamObserver[]): void {
  const { liveResults, status, alerts, recorder, jobs } = core;

  // Every upstream request (marketplace, tier, outcome, time, bytes): /metrics, then /api/v1/status per marketplace.
  upstreamObservers.push(core.metrics, status.aggregator);

  // Every live lookup, successful or not: the status figures per operation.
  liveResults.onResult((r) => status.aggregator.onLiveResult(r));
  liveResults.onFailure((f) => status.aggregator.onLiveFailure(f));
  // A failed live lookup: the alerts' `marketplace.changed` (and blocked) events.
  liveResults.onFailure((failure) => alerts.handleFailure(failure));
  // Every live lookup into the price history (queued; written in batches).
  recorder.attach(liveResults);
  // A batch durably written: the alerts detect price changes on it (never on a row the database refused).
  recorder.onObserved((batch) => alerts.handleObservations(batch));

  // Tracked products: one lookup (or one product answer by SKU) per run, charged to the key that tracks it.
  jobs.handle(
    TRACK_KIND,
    trackHandler({
      registry: core.registry,
      keys: core.keys,
      limits: core.limits,
      lookup: core.lookup,
      refreshProduct: (params, intervalMs) => core.productWatch.refresh(params, intervalMs),
    }),
  );
  // Canaries: one round of the doctor's lookups per interval. Handled even with canaries off here: a BullMQ
  // runner drops the job schedulers of kinds it does not handle, which would fight an instance that has them on.
  jobs.handle(CANARY_KIND, (job) => core.canaries.run(job));
}
