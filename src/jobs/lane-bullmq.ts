/**
 * A lane dispatched through BullMQ (MARKETLENS_REDIS_URL set). The lane's store stays the queue of record — the
 * rows, their order, the leases — because instances share the database anyway and per-group order needs the "only
 * the head is claimable" rule, which BullMQ's open-source queue cannot express. BullMQ carries the *when*: a job
 * names a group; whichever instance's worker takes it claims that group's head through the store's claim
 * (claimHead) and runs it. What an attempt leads to is another job: a retry is a delayed job for its next attempt,
 * a finished item (delivered or given up) a job for the next one in line.
 *
 * Job ids derive from item ids, so two instances scheduling the same step add one job (BullMQ ignores an add whose
 * id exists; removeOnComplete frees it):
 *   <id>          queued (one per group per queued batch: only its head can go anyway)
 *   <id>.r<n>     attempt n + 1 due (after a retry outcome, or found not yet due)
 *   <id>.l<n>     attempt n's lease expires (found in flight: its holder may have died)
 *   <id>.next     <id> finished: its group's next item
 * A job whose group may not run now (the lane's `admit`, alerts: its key is at its share of this instance's send
 * slots) is put back as delayed for about `deferMs`, freeing its worker slot for other groups' jobs. A killed
 * instance's active job is re-run by BullMQ's stalled-job check (lockDuration = the lease), and on start each
 * instance schedules every queued head. Redis is never the only path: the runner keeps a database sweep beside this
 * (lane-db.ts, every `sweepMs`), and with Redis down or flushed an add fails (or is skipped) and only logs.
 */
import type { Job, Queue, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { bullConnection, bullmq, bullQueue, bullWorker, closeBull, type BullTarget } from './bullmq.js';
import type { LaneClaim, LaneHead, LaneItem, LaneOutcome, LaneRunner, LaneSpec } from './lane.js';

interface JobData {
  /** The group. Named as the alerts' jobs always were, so jobs queued in Redis before an upgrade still run. */
  subscriptionId: string;
}

/** Heads scheduled on start; a larger backlog is left to the sweep. */
const RESYNC_LIMIT = 10_000;
/** How long an add waits for a connection (being made at start-up, or re-made) before leaving it to the sweep. */
const CONNECT_WAIT_MS = 2_000;
/** The same Redis trouble is logged at most this often (a down server errors on every reconnect attempt). */
const LOG_EVERY_MS = 60_000;

/** The job for a head's next step (see the table above). */
function stepId(head: LaneHead): string {
  if (head.status === 'inflight') return `${head.id}.l${head.attempts}`;
  return head.attempts === 0 ? head.id : `${head.id}.r${head.attempts}`;
}

export class BullmqLane<C extends LaneClaim> implements LaneRunner {
  private readonly producer: Redis;
  private readonly bull: Queue<JobData>;
  private bullWorker?: Worker<JobData>;
  private workerConnection?: Redis;
  private readonly adding = new Set<Promise<unknown>>();
  private readonly warned = new Map<string, number>();
  private active = 0;
  private connecting?: Promise<void>;
  private drained?: () => void;

  constructor(
    private readonly spec: LaneSpec<C>,
    private readonly target: BullTarget,
  ) {
    // Adds fail fast and give up after CONNECT_WAIT_MS without a connection: nothing piles up while Redis is down,
    // and what was not added is the sweep's.
    this.producer = bullConnection(target, 'producer', (e) => this.warn(`${spec.label} queue: redis error`, e));
    this.bull = bullQueue<JobData>(spec.name, target, {
      connection: this.producer,
      defaultJobOptions: {
        removeOnComplete: true,
        removeOnFail: true,
        // A job fails only on a database error: run it again shortly (the sweep is the slower net).
        attempts: 3,
        backoff: { type: 'exponential', delay: 1_000 },
      },
      onError: (e) => this.warn(`${spec.label} queue error`, e),
    });
  }

  /** Starts taking jobs (any instance may take any) and schedules whatever is already queued. */
  start(): void {
    const { timing, label } = this.spec;
    const { worker, connection } = bullWorker<JobData>(
      this.spec.name,
      this.target,
      (job, token) => this.process(job, token),
      {
        concurrency: timing.concurrency,
        // A killed instance's job is taken again once its lock lapses: about when its database lease does.
        lockDuration: timing.leaseMs,
        stalledInterval: timing.leaseMs,
        onError: (e) => this.warn(`${label} worker error`, e),
        onFailed: (job, e) =>
          this.spec.log.warn({ err: e, job: job?.id }, `${label} dispatch job failed; retried, else left to the sweep`),
      },
    );
    this.bullWorker = worker;
    this.workerConnection = connection;
    this.track(this.resync());
  }

  /** After the rows are committed: one job per group that got items. */
  queued(items: readonly LaneItem[]): void {
    const first = new Map<string, string>();
    for (const e of items) if (!first.has(e.group)) first.set(e.group, e.id);
    // One round trip for the batch: a busy process pays an event-loop turn for each.
    this.track(this.addAll([...first].map(([group, id]) => ({ group, jobId: id, at: Date.now() }))));
  }

  /** A group that may run again: its head moves now rather than at the next sweep. */
  resume(group: string): void {
    this.track(this.spec.store.head(group).then((head) => head && this.add(group, stepId(head), head.at)));
  }

  /** Stops taking jobs; waits (up to `waitMs`) for runs in flight, then closes the connections. */
  async stop(waitMs = 11_000): Promise<void> {
    const timeout = (ms: number) => new Promise((r) => setTimeout(r, ms).unref());
    await closeBull({
      worker: this.bullWorker,
      drain: async () => {
        if (this.active > 0) await Promise.race([new Promise<void>((r) => (this.drained = r)), timeout(waitMs)]);
      },
      pending: () => Promise.allSettled([...this.adding]),
      queue: this.bull,
      connections: [this.workerConnection, this.producer],
    });
  }

  /** What follows a recorded outcome, whichever path ran it (a job here, or the database sweep). */
  recorded(claim: C, outcome: LaneOutcome): void {
    this.track(this.follow(claim, outcome));
  }

  private async process(job: Job<JobData>, token?: string): Promise<void> {
    const group = job.data.subscriptionId;
    const { spec } = this;
    const release = spec.admit ? await spec.admit(group) : () => undefined;
    if (release === false) {
      // May not run now: look again later rather than hold a worker slot another group's job could use.
      const deferMs = Math.round(spec.timing.deferMs * (0.75 + Math.random() * 0.5));
      await job.moveToDelayed(Date.now() + deferMs, token);
      throw new (bullmq().DelayedError)();
    }
    this.active++;
    try {
      const { claimed, head } = await spec.store.claimHead(group, spec.timing.leaseMs, Date.now());
      if (claimed) {
        const outcome = await spec.run(claimed);
        if (outcome) this.recorded(claimed, outcome);
        return;
      }
      // Nothing queued, or another instance won it: nothing to do. Otherwise it is not due yet, or in flight: make
      // sure its next step has a job (whoever scheduled it may have died before adding it).
      if (!head) return;
      const id = stepId(head);
      if (id === job.id) {
        // This very job came early (instances' clocks differ): wait for the time it stands for.
        await job.moveToDelayed(head.at, token);
        throw new (bullmq().DelayedError)();
      }
      await this.add(group, id, head.at);
    } finally {
      release();
      if (--this.active === 0) this.drained?.();
    }
  }

  private async follow(claim: C, outcome: LaneOutcome): Promise<void> {
    if (outcome.kind === 'retry') return this.add(claim.group, `${claim.id}.r${claim.attempts}`, outcome.nextAttemptAt);
    const next = await this.spec.store.head(claim.group);
    if (next) await this.add(claim.group, `${claim.id}.next`, next.at);
  }

  /** Every queued head gets a job for its next step (after a restart, or a Redis flush, nothing waits for a sweep). */
  private async resync(): Promise<void> {
    const heads = await this.spec.store.heads(RESYNC_LIMIT);
    for (let i = 0; i < heads.length; i += 500)
      await this.addAll(heads.slice(i, i + 500).map((h) => ({ group: h.group, jobId: stepId(h), at: h.at })));
  }

  private add(group: string, jobId: string, at: number): Promise<void> {
    return this.addAll([{ group, jobId, at }]);
  }

  private async addAll(jobs: { group: string; jobId: string; at: number }[]): Promise<void> {
    const { label } = this.spec;
    if (!(await this.connected())) return this.warn(`${label} queue: redis not connected`, undefined);
    const now = Date.now();
    try {
      await this.bull.addBulk(
        jobs.map((j) => ({
          name: 'deliver',
          data: { subscriptionId: j.group },
          opts: { jobId: j.jobId, delay: Math.max(0, j.at - now) },
        })),
      );
    } catch (e) {
      this.warn(`${label} queue: adding jobs failed`, e);
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
    const tracked = p.catch((e) =>
      this.spec.log.warn({ err: e }, `${this.spec.label} dispatch failed; the sweep will deliver`),
    );
    this.adding.add(tracked);
    void tracked.finally(() => this.adding.delete(tracked));
  }

  private warn(msg: string, err: unknown): void {
    const now = Date.now();
    if (now - (this.warned.get(msg) ?? 0) < LOG_EVERY_MS) return;
    this.warned.set(msg, now);
    this.spec.log.warn({ err }, `${msg}; deliveries go out through the database sweep meanwhile`);
  }
}
