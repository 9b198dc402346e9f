/**
 * Webhook deliveries dispatched through BullMQ (MARKETLENS_REDIS_URL set). The database stays the queue of record —
 * the rows, their order, the leases, the deliveries listing — because instances share it anyway and per-subscription
 * order needs the "only the head is claimable" rule, which BullMQ's open-source queue cannot express. BullMQ carries
 * the *when*: a job names a subscription; whichever instance's worker takes it claims that subscription's head
 * through the database claim (DeliveryQueue.claimHead) and delivers it (DeliveryWorker.deliver). What an attempt
 * leads to is another job: a retry is a delayed job for its next attempt, a finished delivery (delivered or given
 * up) a job for the next one in line.
 *
 * Job ids derive from delivery ids, so two instances scheduling the same step add one job (BullMQ ignores an add
 * whose id exists; removeOnComplete frees it):
 *   <id>          queued (one per subscription per enqueued batch: only its head can go anyway)
 *   <id>.r<n>     attempt n + 1 due (after a retry outcome, or found not yet due)
 *   <id>.l<n>     attempt n's lease expires (found in flight: its holder may have died)
 *   <id>.next     <id> finished: its subscription's next delivery
 * A job whose subscription's key (or key and target host) holds its share of this instance's send slots
 * (send-shares.ts) is put back as delayed for about `deferMs`, freeing its worker slot for other keys' jobs.
 * A killed instance's active job is re-run by BullMQ's stalled-job check (lockDuration = the lease), and on start
 * each instance schedules every queued head. Redis is never the only path: the DeliveryWorker keeps sweeping the
 * database every `sweepMs`, and with Redis down or flushed an add fails (or is skipped) and only logs.
 */
import type { Job, Queue, Worker } from 'bullmq';
import { bullmq } from '../util/bullmq.js';
import { Redis } from 'ioredis';
import type { Claimed, DeliveryQueue, Enqueued, Head, Outcome } from './queue.js';
import type { Logger } from '../platform/logger.js';
import type { DeliveryTiming, DeliveryWorker } from './worker.js';

export interface BullmqDispatchOptions {
  redisUrl: string;
  /** MARKETLENS_REDIS_PREFIX: the queue lives under `${prefix}bull`, as the scheduler's does. */
  prefix: string;
  queue: DeliveryQueue;
  worker: DeliveryWorker;
  timing: Pick<DeliveryTiming, 'leaseMs' | 'concurrency' | 'deferMs'>;
  log: Logger;
}

interface JobData {
  subscriptionId: string;
}

const QUEUE = 'webhooks';
/** Heads scheduled on start; a larger backlog is left to the sweep. */
const RESYNC_LIMIT = 10_000;
/** How long an add waits for a connection (being made at start-up, or re-made) before leaving it to the sweep. */
const CONNECT_WAIT_MS = 2_000;
/** The same Redis trouble is logged at most this often (a down server errors on every reconnect attempt). */
const LOG_EVERY_MS = 60_000;

/** The job for a head's next step (see the table above). */
function stepId(head: Head): string {
  if (head.status === 'inflight') return `${head.id}.l${head.attempts}`;
  return head.attempts === 0 ? head.id : `${head.id}.r${head.attempts}`;
}

export class BullmqDispatch {
  private readonly producer: Redis;
  private readonly bull: Queue<JobData>;
  private bullWorker?: Worker<JobData>;
  private workerConnection?: Redis;
  private readonly adding = new Set<Promise<unknown>>();
  private readonly warned = new Map<string, number>();
  private active = 0;
  private connecting?: Promise<void>;
  private drained?: () => void;

  constructor(private readonly opts: BullmqDispatchOptions) {
    // Adds fail fast (one retry, 5 s at most on a hung server) and give up after CONNECT_WAIT_MS without a
    // connection: nothing piles up while Redis is down, and what was not added is the sweep's.
    this.producer = new Redis(opts.redisUrl, { maxRetriesPerRequest: 1, commandTimeout: 5_000 });
    this.producer.on('error', (e) => this.warn('webhook queue: redis error', e));
    this.bull = new (bullmq().Queue)<JobData>(QUEUE, {
      connection: this.producer,
      prefix: `${opts.prefix}bull`,
      defaultJobOptions: {
        removeOnComplete: true,
        removeOnFail: true,
        // A job fails only on a database error: run it again shortly (the sweep is the slower net).
        attempts: 3,
        backoff: { type: 'exponential', delay: 1_000 },
      },
    });
    this.bull.on('error', (e) => this.warn('webhook queue error', e));
    opts.worker.onRecorded = (claim, outcome) => this.track(this.recorded(claim, outcome));
  }

  /** Starts taking jobs (any instance may take any) and schedules whatever is already queued. */
  start(): void {
    this.workerConnection = new Redis(this.opts.redisUrl, { maxRetriesPerRequest: null });
    this.workerConnection.on('error', () => undefined); // reported through the worker's 'error' below
    this.bullWorker = new (bullmq().Worker)<JobData>(QUEUE, (job, token) => this.process(job, token), {
      connection: this.workerConnection,
      prefix: `${this.opts.prefix}bull`,
      concurrency: this.opts.timing.concurrency,
      // A killed instance's job is taken again once its lock lapses: about when its database lease does.
      lockDuration: this.opts.timing.leaseMs,
      stalledInterval: this.opts.timing.leaseMs,
    });
    this.bullWorker.on('error', (e) => this.warn('webhook worker error', e));
    this.bullWorker.on('failed', (job, e) =>
      this.opts.log.warn({ err: e, job: job?.id }, 'webhook dispatch job failed; retried, else left to the sweep'),
    );
    this.track(this.resync());
  }

  /** After the rows are committed: one job per subscription that got deliveries. */
  notify(enqueued: readonly Enqueued[]): void {
    const first = new Map<string, string>();
    for (const e of enqueued) if (!first.has(e.subscriptionId)) first.set(e.subscriptionId, e.id);
    // One round trip for the batch: a busy process pays an event-loop turn for each.
    this.track(this.addAll([...first].map(([subscriptionId, id]) => ({ subscriptionId, jobId: id, at: Date.now() }))));
  }

  /** A subscription enabled again: its queue moves now rather than at the next sweep. */
  resume(subscriptionId: string): void {
    this.track(
      this.opts.queue.head(subscriptionId).then((head) => head && this.add(subscriptionId, stepId(head), head.at)),
    );
  }

  /** Stops taking jobs; waits (up to `waitMs`) for deliveries in flight, then closes the connections. */
  async close(waitMs = 11_000): Promise<void> {
    const closing = this.bullWorker?.close().catch(() => undefined);
    const timeout = (ms: number) => new Promise((r) => setTimeout(r, ms).unref());
    if (this.active > 0) await Promise.race([new Promise<void>((r) => (this.drained = r)), timeout(waitMs)]);
    // Redis down: BullMQ's commands wait for a reconnect forever; give them a moment, then cut the connections.
    await Promise.race([closing, timeout(2_000)]);
    await Promise.race([Promise.allSettled([...this.adding]), timeout(2_000)]);
    await Promise.race([this.bull.close().catch(() => undefined), timeout(2_000)]);
    this.workerConnection?.disconnect();
    this.producer.disconnect();
  }

  private async process(job: Job<JobData>, token?: string): Promise<void> {
    const { subscriptionId } = job.data;
    const { worker } = this.opts;
    const sub = await worker.subscription(subscriptionId);
    if (sub && !worker.shares.take(sub.keyId, sub.url)) {
      // Over its share: look again later rather than hold a worker slot another key's job could use.
      const deferMs = Math.round(this.opts.timing.deferMs * (0.75 + Math.random() * 0.5));
      await job.moveToDelayed(Date.now() + deferMs, token);
      throw new (bullmq().DelayedError)();
    }
    this.active++;
    try {
      const { claimed, head } = await this.opts.queue.claimHead(subscriptionId, this.opts.timing.leaseMs);
      if (claimed) return void (await this.opts.worker.deliver(claimed));
      // Nothing queued, or another instance won it: nothing to do. Otherwise it is not due yet, or in flight: make
      // sure its next step has a job (whoever scheduled it may have died before adding it).
      if (!head) return;
      const id = stepId(head);
      if (id === job.id) {
        // This very job came early (instances' clocks differ): wait for the time it stands for.
        await job.moveToDelayed(head.at, token);
        throw new (bullmq().DelayedError)();
      }
      await this.add(subscriptionId, id, head.at);
    } finally {
      if (sub) worker.shares.release(sub.keyId, sub.url);
      if (--this.active === 0) this.drained?.();
    }
  }

  private async recorded(claim: Claimed, outcome: Outcome): Promise<void> {
    if (outcome.kind === 'retry')
      return this.add(claim.subscriptionId, `${claim.id}.r${claim.attempts}`, outcome.nextAttemptAt);
    const next = await this.opts.queue.head(claim.subscriptionId);
    if (next) await this.add(claim.subscriptionId, `${claim.id}.next`, next.at);
  }

  /** Every queued head gets a job for its next step (after a restart, or a Redis flush, nothing waits for a sweep). */
  private async resync(): Promise<void> {
    const heads = await this.opts.queue.allHeads(RESYNC_LIMIT);
    for (let i = 0; i < heads.length; i += 500)
      await this.addAll(
        heads.slice(i, i + 500).map((h) => ({ subscriptionId: h.subscriptionId, jobId: stepId(h), at: h.at })),
      );
  }

  private add(subscriptionId: string, jobId: string, at: number): Promise<void> {
    return this.addAll([{ subscriptionId, jobId, at }]);
  }

  private async addAll(jobs: { subscriptionId: string; jobId: string; at: number }[]): Promise<void> {
    if (!(await this.connected())) return this.warn('webhook queue: redis not connected', undefined);
    const now = Date.now();
    try {
      await this.bull.addBulk(
        jobs.map((j) => ({
          name: 'deliver',
          data: { subscriptionId: j.subscriptionId },
          opts: { jobId: j.jobId, delay: Math.max(0, j.at - now) },
        })),
      );
    } catch (e) {
      this.warn('webhook queue: adding jobs failed', e);
    }
  }

  /** Whether the producer connection is up, waiting up to CONNECT_WAIT_MS for it (one wait shared by all adds). */
  private async connected(): Promise<boolean> {
    const up = () => this.producer.status === 'ready';
    if (up()) return true;
    this.connecting ??= new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.producer.off('ready', done);
        this.connecting = undefined;
        resolve();
      };
      const timer = setTimeout(done, CONNECT_WAIT_MS);
      this.producer.once('ready', done);
    });
    await this.connecting;
    return up();
  }

  private track(p: Promise<unknown>): void {
    const tracked = p.catch((e) => this.opts.log.warn({ err: e }, 'webhook dispatch failed; the sweep will deliver'));
    this.adding.add(tracked);
    void tracked.finally(() => this.adding.delete(tracked));
  }

  private warn(msg: string, err: unknown): void {
    const now = Date.now();
    if (now - (this.warned.get(msg) ?? 0) < LOG_EVERY_MS) return;
    this.warned.set(msg, now);
    this.opts.log.warn({ err }, `${msg}; deliveries go out through the database sweep meanwhile`);
  }
}
