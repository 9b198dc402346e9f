/**
 * Recurring jobs with Redis (MARKETLENS_REDIS_URL set): one BullMQ job scheduler per job on the shared Redis, so N
 * instances share the work — BullMQ makes exactly one job per interval, any instance's worker takes it, and a
 * killed instance's stalled job is picked up by another. The database stays the source of truth (routes and the
 * CLI write `schedule_jobs`); every instance syncs it into job schedulers, adding what is missing, removing what is
 * gone.
 */
import type { Logger } from '../platform/logger.js';
import type { Queue, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.js';
import { bullConnection, bullQueue, bullWorker, closeBull, type BullTarget } from './bullmq.js';
import { getJob, listJobs } from './jobs.js';
import type { JobHandler, Scheduler } from './recurring.js';

export interface BullmqRecurringOptions extends BullTarget {
  syncMs?: number;
  concurrency?: number;
  log?: Logger;
}

const QUEUE = 'schedule';

export class BullmqRecurring implements Scheduler {
  private readonly handlers = new Map<string, JobHandler>();
  private readonly connection: Redis;
  private readonly queue: Queue;
  private worker: Worker<{ id: string }> | undefined;
  private workerConnection: Redis | undefined;
  private timer: NodeJS.Timeout | undefined;
  private syncing: Promise<void> | undefined;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly opts: BullmqRecurringOptions,
  ) {
    this.connection = bullConnection(opts, 'blocking', (e) =>
      opts.log?.warn({ err: e.message }, 'scheduler redis error'),
    );
    this.queue = bullQueue(QUEUE, opts, {
      connection: this.connection,
      onError: (e) => opts.log?.warn({ err: e.message }, 'scheduler queue error'),
    });
  }

  handle(kind: string, handler: JobHandler): void {
    this.handlers.set(kind, handler);
  }

  start(): void {
    const { worker, connection } = bullWorker<{ id: string }>(
      QUEUE,
      this.opts,
      async (bull) => {
        const job = await getJob(this.db, String(bull.data.id));
        // Removed since BullMQ made this run: drop its scheduler, do nothing.
        if (!job) return void (await this.queue.removeJobScheduler(String(bull.data.id)));
        // Paused since the last sync (perhaps on another instance): skip; the next sync removes its scheduler.
        if (job.pausedAt !== null) return;
        const handler = this.handlers.get(job.kind);
        if (handler) await handler(job);
      },
      {
        concurrency: this.opts.concurrency ?? 8,
        onError: (e) => this.opts.log?.warn({ err: e.message }, 'scheduler worker error'),
        onFailed: (j, e) => this.opts.log?.warn({ id: j?.data?.id, err: e.message }, 'scheduled job failed'),
      },
    );
    this.worker = worker;
    this.workerConnection = connection;
    this.timer = setInterval(() => this.changed(), this.opts.syncMs ?? 5000).unref();
    this.changed();
  }

  changed(): void {
    this.syncing ??= this.sync()
      .catch((e) => this.opts.log?.error({ err: (e as Error).message }, 'scheduler sync failed'))
      .finally(() => (this.syncing = undefined));
  }

  /**
   * Database jobs → job schedulers: add the missing (or re-timed), remove the deleted and the paused. Idempotent
   * across instances. A paused job has no job scheduler at all (rather than one whose runs are skipped), so Redis
   * holds no timer for it and resuming re-adds it: BullMQ then makes its first run at once and keeps the interval
   * from there, with no burst of the slots missed while paused.
   */
  async sync(): Promise<void> {
    const kinds = new Set(this.handlers.keys());
    const jobs = (await listJobs(this.db)).filter((j) => kinds.has(j.kind) && j.pausedAt === null);
    const existing = new Map((await this.queue.getJobSchedulers(0, -1)).map((s) => [s.key, s]));
    for (const j of jobs) {
      const have = existing.get(j.id);
      if (have && Number(have.every) === j.intervalMs) continue;
      await this.queue.upsertJobScheduler(
        j.id,
        { every: j.intervalMs },
        { name: j.kind, data: { id: j.id }, opts: { removeOnComplete: 100, removeOnFail: 100 } },
      );
    }
    const ids = new Set(jobs.map((j) => j.id));
    for (const key of existing.keys()) if (!ids.has(key)) await this.queue.removeJobScheduler(key);
  }

  /** Bounded (closeBull): an unreachable Redis does not hold shutdown. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await closeBull({
      worker: this.worker,
      pending: () => this.syncing,
      queue: this.queue,
      connections: [this.workerConnection, this.connection],
    });
  }
}
