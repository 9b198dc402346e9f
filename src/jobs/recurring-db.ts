/**
 * Recurring jobs without Redis: state in the database, so a restart resumes where it stopped and several instances on
 * one PostgreSQL share the work. Each tick claims due jobs with a compare-and-set on `next_run_at` (only one
 * instance wins a slot), advances the slot by one interval and takes a lease; a run that dies with its instance
 * leaves only an expired lease, and the next slot runs wherever it is claimed.
 */
import type { Logger } from '../platform/logger.js';
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.js';
import { toJob } from './jobs.js';
import type { JobHandler, Scheduler } from './recurring.js';

export interface DbRecurringOptions {
  tickMs?: number;
  /** How long a claimed run may take before another instance may consider the job free again. */
  leaseMs?: number;
  log?: Logger;
  now?: () => number;
}

export class DbRecurring implements Scheduler {
  private readonly handlers = new Map<string, JobHandler>();
  private timer: NodeJS.Timeout | undefined;
  private running = new Set<Promise<void>>();
  private ticking = false;
  private stopped = false;
  private readonly tickMs: number;
  private readonly leaseMs: number;
  private readonly now: () => number;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly opts: DbRecurringOptions = {},
  ) {
    this.tickMs = opts.tickMs ?? 1000;
    this.leaseMs = opts.leaseMs ?? 120_000;
    this.now = opts.now ?? Date.now;
  }

  handle(kind: string, handler: JobHandler): void {
    this.handlers.set(kind, handler);
  }

  start(): void {
    this.stopped = false;
    this.timer = setInterval(() => void this.tick(), this.tickMs).unref();
    void this.tick();
  }

  changed(): void {
    if (!this.stopped && this.timer) void this.tick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.idle();
  }

  /** Resolves once every run started so far has finished and been recorded. */
  async idle(): Promise<void> {
    await Promise.allSettled([...this.running]);
  }

  /** One pass: claim and start every due job (runs go on in the background). */
  async tick(): Promise<void> {
    if (this.ticking || this.stopped) return;
    this.ticking = true;
    try {
      const now = this.now();
      const kinds = [...this.handlers.keys()];
      if (kinds.length === 0) return;
      const due = await this.db
        .selectFrom('schedule_jobs')
        .selectAll()
        .where('kind', 'in', kinds)
        .where('next_run_at', '<=', now)
        .where('paused_at', 'is', null)
        .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now)]))
        .orderBy('next_run_at')
        .limit(50)
        .execute();
      for (const row of due) {
        const slot = Number(row.next_run_at);
        const interval = Number(row.interval_ms);
        // Keep the cadence; after downtime run once now rather than once per missed slot.
        const next = slot + interval > now ? slot + interval : now + interval;
        const claimed = await this.db
          .updateTable('schedule_jobs')
          .set({ next_run_at: next, locked_until: now + this.leaseMs })
          .where('id', '=', row.id)
          .where('next_run_at', '=', slot)
          .where('paused_at', 'is', null) // paused since the select: not this slot
          .executeTakeFirst();
        if (Number(claimed.numUpdatedRows) !== 1) continue; // another instance took this slot
        const p = this.run(row.id, this.handlers.get(row.kind)!, toJob({ ...row, next_run_at: next }));
        this.running.add(p);
        void p.finally(() => this.running.delete(p));
      }
    } catch (e) {
      this.opts.log?.error({ err: (e as Error).message }, 'scheduler tick failed');
    } finally {
      this.ticking = false;
    }
  }

  private async run(id: string, handler: JobHandler, job: ReturnType<typeof toJob>): Promise<void> {
    let error: string | null = null;
    try {
      await handler(job);
    } catch (e) {
      error = (e as Error).message.slice(0, 500);
      this.opts.log?.warn({ id, kind: job.kind, err: error }, 'scheduled job failed');
    }
    await this.db
      .updateTable('schedule_jobs')
      .set((eb) => ({ locked_until: null, last_run_at: this.now(), last_error: error, runs: eb('runs', '+', 1) }))
      .where('id', '=', id)
      .execute()
      .catch((e) => this.opts.log?.error({ id, err: (e as Error).message }, 'scheduler could not record a run'));
  }
}
