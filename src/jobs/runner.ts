/**
 * The job runner: one place that runs the service's background work, on one of two backends chosen once by the
 * configuration — the database alone without MARKETLENS_REDIS_URL, BullMQ on that Redis with it. It runs
 *   (a) recurring jobs by kind (recurring.ts: tracked products, status canaries), and
 *   (b) ordered one-off deliveries in lanes (lane.ts: alert deliveries, in order per subscription).
 * Both backends keep the database as the record (a restart resumes from it) and let several instances share the
 * work, each job run or item attempt won by one instance.
 */
import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import type { Logger } from '../platform/logger.js';
import type { Database } from '../store/schema.js';
import type { BullTarget } from './bullmq.js';
import type { Lane, LaneClaim, LaneRunner, LaneSpec } from './lane.js';
import { DbLane } from './lane-db.js';
import { BullmqLane } from './lane-bullmq.js';
import type { JobHandler, Scheduler } from './recurring.js';
import { BullmqRecurring } from './recurring-bullmq.js';
import { DbRecurring } from './recurring-db.js';

export interface JobRunnerOptions {
  config: Pick<Config, 'redisUrl' | 'redisPrefix'>;
  db: Kysely<Database>;
  log?: Logger;
  /** The database backend's clock (its claims and polls); BullMQ keeps Redis's time. */
  clock?: () => number;
  /** Recurring jobs: how often the table is polled (database) or synced into job schedulers (BullMQ). */
  recurringPollMs?: number;
}

export class JobRunner implements Scheduler {
  private recurringBackend?: Scheduler;
  private readonly lanes: LaneRunner[] = [];
  private started = false;

  constructor(private readonly opts: JobRunnerOptions) {}

  /** BullMQ's target when Redis is configured; undefined for the database backend. */
  private get bull(): BullTarget | undefined {
    const { redisUrl, redisPrefix } = this.opts.config;
    return redisUrl ? { redisUrl, prefix: redisPrefix } : undefined;
  }

  /**
   * The recurring jobs' backend, made on first use: a runner that only has lanes (the alerts') opens no scheduler,
   * whose BullMQ sync would otherwise remove the job schedulers of kinds it has no handler for.
   */
  get recurring(): Scheduler {
    const { db, log, clock, recurringPollMs } = this.opts;
    const bull = this.bull;
    return (this.recurringBackend ??= bull
      ? new BullmqRecurring(db, { ...bull, log, syncMs: recurringPollMs })
      : new DbRecurring(db, { log, now: clock, tickMs: recurringPollMs }));
  }

  /** Registers the handler of a recurring job kind, before `start`. */
  handle(kind: string, handler: JobHandler): void {
    this.recurring.handle(kind, handler);
  }

  /** The job table changed (a job added, removed, paused or resumed): look now rather than at the next poll. */
  changed(): void {
    this.recurringBackend?.changed();
  }

  /** Registers an ordered-delivery lane; it starts and stops with the runner. */
  lane<C extends LaneClaim>(spec: LaneSpec<C>): Lane {
    const bull = this.bull;
    let lane: LaneRunner;
    if (!bull) lane = new DbLane(spec, spec.timing.pollMs, this.opts.clock);
    else {
      const dispatch = new BullmqLane(spec, bull);
      const sweep = new DbLane(spec, spec.timing.sweepMs, this.opts.clock, (c, o) => dispatch.recorded(c, o));
      lane = {
        start: () => {
          dispatch.start();
          sweep.start();
        },
        stop: async () => void (await Promise.all([dispatch.stop(), sweep.stop()])),
        queued: (items) => dispatch.queued(items),
        resume: (group) => dispatch.resume(group),
      };
    }
    this.lanes.push(lane);
    if (this.started) lane.start();
    return lane;
  }

  /** Starts every lane and the recurring jobs; again is a no-op (owners sharing a runner may each start it). */
  start(): void {
    if (this.started) return;
    this.started = true;
    for (const lane of this.lanes) lane.start();
    this.recurringBackend?.start();
  }

  /** Stops taking work and waits (bounded) for what is running; unfinished work resumes on the next start. */
  async stop(): Promise<void> {
    this.started = false;
    await Promise.all([this.recurringBackend?.stop(), ...this.lanes.map((l) => l.stop())]);
  }
}

/** The runner for this configuration: BullMQ on the shared Redis when MARKETLENS_REDIS_URL is set, else the database. */
export function createJobRunner(opts: JobRunnerOptions): JobRunner {
  return new JobRunner(opts);
}
