/**
 * The clustered scheduler (MARKETLENS_REDIS_URL set): one BullMQ job scheduler per job on the shared Redis, so N
 * instances share the work — BullMQ makes exactly one job per interval, any instance's worker takes it, and a
 * killed instance's stalled job is picked up by another. The database stays the source of truth (routes and the
 * CLI write `schedule_jobs`); every instance syncs it into job schedulers, adding what is missing, removing what is
 * gone.
 */
import type { Logger } from '../platform/logger.js';
import type { Queue, Worker } from 'bullmq';
import { bullmq } from '../util/bullmq.js';
import { Redis } from 'ioredis';
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.js';
import { getJob, listJobs } from './jobs.js';
import type { JobHandler, Scheduler } from './scheduler.js';

export interface BullmqOptions {
  redisUrl: string;
  /** Key prefix of this deployment (MARKETLENS_REDIS_PREFIX), so deployments and test runs never share queues. */
  prefix: string;
  syncMs?: number;
  concurrency?: number;
  log?: Logger;
}

const QUEUE = 'schedule';

export class BullmqScheduler implements Scheduler {
  private readonly handlers = new Map<string, JobHandler>();
  private readonly connection: Redis;
  private readonly queue: Queue;
  private worker: Worker | undefined;
  private workerConnection: Redis | undefined;
  private timer: NodeJS.Timeout | undefined;
  private syncing: Promise<void> | undefined;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly opts: BullmqOptions,
  ) {
    // BullMQ needs maxRetriesPerRequest: null on the connection its blocking worker commands use.
    this.connection = new Redis(opts.redisUrl, { maxRetriesPerRequest: null });
    this.connection.on('error', (e) => opts.log?.warn({ err: e.message }, 'scheduler redis error'));
    this.queue = new (bullmq().Queue)(QUEUE, { connection: this.connection, prefix: `${opts.prefix}bull` });
    // An EventEmitter without an 'error' listener would throw: Redis trouble is logged, lookups go on.
    this.queue.on('error', (e) => opts.log?.warn({ err: e.message }, 'scheduler queue error'));
  }

  handle(kind: string, handler: JobHandler): void {
    this.handlers.set(kind, handler);
  }

  start(): void {
    this.worker = new (bullmq().Worker)(
      QUEUE,
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
        connection: (this.workerConnection = this.connection.duplicate()),
        prefix: `${this.opts.prefix}bull`,
        concurrency: this.opts.concurrency ?? 8,
      },
    );
    this.workerConnection.on('error', () => undefined); // reported through the worker's 'error' below
    this.worker.on('failed', (j, e) =>
      this.opts.log?.warn({ id: j?.data?.id, err: e.message }, 'scheduled job failed'),
    );
    this.worker.on('error', (e) => this.opts.log?.warn({ err: e.message }, 'scheduler worker error'));
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

  /**
   * Bounded: with Redis unreachable, BullMQ's commands wait for a reconnect forever (maxRetriesPerRequest: null), so
   * shutdown gives them a moment and then cuts the connections, which fails whatever still waits.
   */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    const bounded = (p: Promise<unknown> | undefined) =>
      Promise.race([p?.catch(() => undefined), new Promise((r) => setTimeout(r, 2000).unref())]);
    await bounded(this.syncing);
    await bounded(this.worker?.close());
    await bounded(this.queue.close());
    this.workerConnection?.disconnect();
    this.connection.disconnect();
  }
}
