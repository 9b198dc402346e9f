/**
 * Canaries (MARKETLENS_CANARY_INTERVAL): the doctor's lookups, run live on schedule through the service's own lookup
 * path, so their answers and failures reach every subscriber of the live-results seam — /api/v1/status, history, and
 * the alerts' `marketplace.changed` event — exactly as a caller's lookups do.
 *
 * They run through the same scheduler as tracked products (src/jobs: on the database, or BullMQ with
 * MARKETLENS_REDIS_URL), as one `canary` job: one round (every operation, one at a time) per interval, on whichever
 * instance claims it, however many instances share the database (and Redis). The job is written at start from the
 * configuration (a fixed id, so instances starting together make one) and deleted when the setting is off.
 */
import type { Kysely } from 'kysely';
import type { LookupService } from '../operations/lookup.js';
import { BUILT_IN_REGISTRY, type Registry } from '../operations/registry.js';
import type { Job } from '../jobs/index.js';
import type { Logger } from '../platform/logger.js';
import type { Database } from '../store/schema.js';
import { isScheduledDeferral } from '../upstream/lane.js';
import { probeParams } from './doctor.js';

export const CANARY_KIND = 'canary';
/** The one canary job's id: a fixed one, so several instances writing it at start make one job, not several. */
export const CANARY_JOB_ID = 'canary';

export class Canaries {
  private stopped = false;

  constructor(
    private readonly lookup: LookupService,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
    private readonly registry: Registry = BUILT_IN_REGISTRY,
  ) {}

  /** Shutdown: the running round starts no further lookup (the scheduler waits for the one in flight). */
  stop(): void {
    this.stopped = true;
  }

  /**
   * The `canary` job's handler. Canaries never run at start-up: BullMQ runs a new job scheduler at once, so a run
   * within the first half interval of the job's creation is skipped (the embedded scheduler's first slot is one
   * interval after it). A round is bounded by the interval, so rounds never overlap.
   */
  async run(job: Job): Promise<void> {
    const now = this.now();
    if (now < job.createdAt + job.intervalMs / 2) return;
    await this.round(now + job.intervalMs);
  }

  /**
   * One lookup per operation, one at a time (a canary must never be a burst), each forced live (max_age=0), in the
   * scheduled lane.
   */
  async round(until = Infinity): Promise<void> {
    for (const op of this.registry.operations) {
      const name = op.name;
      if (this.stopped) return;
      if (this.now() >= until) {
        this.log.warn({ canary: name }, 'canary round ran out of its interval; the rest waits for the next round');
        return;
      }
      try {
        const params = op.params.parse(probeParams(op));
        // Scheduled lane: a canary never makes a caller wait for an upstream slot.
        await this.lookup.run(op, params, { maxAgeSeconds: 0, lane: 'scheduled' });
      } catch (e) {
        // Its marketplace's scheduled lane is full: no canary this round (the client counted and logged it).
        if (isScheduledDeferral(e)) continue;
        // Already counted through the seam; the log line says which canary failed.
        this.log.warn({ canary: name, code: (e as { code?: string }).code }, 'canary lookup failed');
      }
    }
  }
}

/**
 * The canary job from the configuration: created (first round one interval from now) or re-timed when the interval
 * changed (an unchanged one keeps its cadence across restarts); deleted when canaries are off (`intervalMs` null).
 * Idempotent, and safe when several instances run it at once.
 */
export async function syncCanaryJob(db: Kysely<Database>, intervalMs: number | null, now = Date.now()): Promise<void> {
  if (intervalMs === null) {
    await db.deleteFrom('schedule_jobs').where('kind', '=', CANARY_KIND).execute();
    return;
  }
  const timing = { interval_ms: intervalMs, next_run_at: now + intervalMs, created_at: now };
  await db
    .insertInto('schedule_jobs')
    .values({
      id: CANARY_JOB_ID,
      kind: CANARY_KIND,
      payload: '{}',
      ...timing,
      locked_until: null,
      last_run_at: null,
      last_error: null,
      runs: 0,
    })
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
  await db
    .updateTable('schedule_jobs')
    .set(timing)
    .where('id', '=', CANARY_JOB_ID)
    .where('interval_ms', '!=', intervalMs)
    .execute();
}
