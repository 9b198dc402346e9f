/**
 * The alert engine: observations in (history.onObserved → handleObservations; liveResults.onFailure →
 * handleFailure), queued signed deliveries out. The listeners run on the lookup path, so they only queue the work
 * and return; detection, fan-out and enqueueing happen in order in the background, in grouped transactions.
 * Deliveries are queued in the database and run by the job runner as its alert lane (delivery-lane.ts): polled from
 * the database, or with Redis configured dispatched by BullMQ with the database loop only sweeping for what Redis lost.
 */
import type { Kysely } from 'kysely';
import { createJobRunner, type JobRunner, type Lane } from '../jobs/index.js';
import type { Database } from '../store/schema.js';
import type { ObservationBatch } from '../history/observation.js';
import type { LiveFailure } from '../operations/live-results.js';
import type { Logger } from '../platform/logger.js';
import { isStoreUnavailable } from '../store/unavailable.js';
import type { ProductAnswer } from '../products/types.js';
import { detectChanges, detectFailure } from './detect.js';
import { detectProductChanges } from './detect-product.js';
import { deliveryLane } from './delivery-lane.js';
import { TEST_EVENT, type DetectedEvent, type WebhookMessage } from './events.js';
import { messagesFor } from './match.js';
import { DeliveryQueue, type Enqueued, type QueuedMessage } from './queue.js';
import type { AlertTables } from './schema.js';
import { createSender, type Sender } from './send.js';
import { createChannelSender } from './channels/send-channel.js';
import { DEFAULT_ENDPOINTS, type ChannelEndpoints } from './channels/types.js';
import { AlertState } from './state.js';
import type { SubscriptionIndex } from './subscription-index.js';
import { Subscriptions, type Subscription } from './subscriptions.js';
import type { TargetPolicy } from './target-guard.js';
import { DEFAULT_TIMING, DeliveryWorker, type DeliveryTiming } from './worker.js';

export interface AlertEngineOptions {
  db: Kysely<AlertTables>;
  policy: TargetPolicy;
  log: Logger;
  timing?: Partial<DeliveryTiming>;
  /** Per-attempt timeout (ms). */
  timeoutMs?: number;
  /** Tests replace the HTTP sender. */
  sender?: Sender;
  /** Where Telegram's Bot API and the default ntfy server are (MARKETLENS_TELEGRAM_API_URL, MARKETLENS_NTFY_URL). */
  channels?: ChannelEndpoints;
  /** MARKETLENS_REDIS_URL / _PREFIX: deliveries are dispatched through BullMQ there. */
  redis?: { url: string; prefix: string };
  /**
   * The job runner to run deliveries on, started and stopped by whoever made it (the core: one runner for tracked
   * products, canaries and deliveries); else the engine makes one for `redis` and starts and stops it itself.
   */
  jobs?: JobRunner;
}

/** Observations waiting for detection beyond which a warning is logged (the database is not keeping up). */
const BACKLOG_WARN = 50_000;
/**
 * Observations held while the database is unavailable, at most: beyond it new ones are dropped (counted in
 * `dropped`, logged) rather than letting memory grow without bound. (One observation is a batch of one lookup.)
 */
const BACKLOG_MAX = 100_000;
/** While the database is unavailable, the held group is tried again after a pause doubling up to this. */
const RETRY_MAX_MS = 2_000;
const RETRY_MIN_MS = 100;
const DROP_LOG_EVERY_MS = 30_000;
/** Observations detected per transaction, and how often a failed group is run again. */
const GROUP = 200;
const GROUP_ATTEMPTS = 3;

type Work = (state: AlertState) => Promise<DetectedEvent[]>;

export class AlertEngine {
  readonly subscriptions: Subscriptions;
  readonly queue: DeliveryQueue;
  readonly policy: TargetPolicy;
  private readonly state: AlertState;
  private readonly jobs: JobRunner;
  /** True when the engine made its runner (and so starts and stops it). */
  private readonly ownsJobs: boolean;
  private readonly lane: Lane;
  private readonly timing: DeliveryTiming;
  private readonly sender: Sender;
  private readonly log: AlertEngineOptions['log'];
  private readonly db: Kysely<AlertTables>;
  private pending: Work[] = [];
  private draining?: Promise<void>;
  /** Observations dropped: the backlog was full while the database was unavailable, or it still was at close. */
  dropped = 0;
  private lastDropLog = 0;
  private closing = false;
  /** Observations still to run one per transaction because their group was refused. */
  private singles = 0;
  /** Ends the pause before the next attempt (close does not wait out a database outage). */
  private endPause?: () => void;

  constructor(options: AlertEngineOptions) {
    this.db = options.db;
    this.policy = options.policy;
    this.log = options.log;
    this.subscriptions = new Subscriptions(options.db);
    this.queue = new DeliveryQueue(options.db);
    this.state = new AlertState(options.db);
    this.timing = {
      ...DEFAULT_TIMING,
      ...(options.timeoutMs === undefined ? {} : { sendTimeoutMs: options.timeoutMs }),
      ...options.timing,
    };
    this.sender = options.sender ?? createSender(options.policy, this.timing.sendTimeoutMs);
    const channels = createChannelSender(
      this.sender,
      options.policy,
      options.channels ?? DEFAULT_ENDPOINTS,
      this.timing.sendTimeoutMs,
    );
    const worker = new DeliveryWorker(this.queue, this.subscriptions, this.sender, this.timing, channels);
    this.ownsJobs = !options.jobs;
    this.jobs =
      options.jobs ??
      createJobRunner({
        config: { redisUrl: options.redis?.url, redisPrefix: options.redis?.prefix ?? '' },
        // The one database, seen whole: this runner only runs the alert lane, on the alerts' own tables.
        db: options.db as unknown as Kysely<Database>,
        log: options.log,
      });
    this.lane = this.jobs.lane(deliveryLane(this.queue, worker, this.timing, options.log));
  }

  /** Starts delivering (claiming due deliveries, including those left by a previous run). */
  start(): void {
    if (this.ownsJobs) this.jobs.start();
  }

  async close(): Promise<void> {
    this.closing = true;
    this.endPause?.();
    await this.idle();
    if (this.ownsJobs) await this.jobs.stop();
    this.sender.close();
  }

  /** A subscription was enabled again: deliver what it has queued. */
  resumed(subscriptionId: string): void {
    this.lane.resume(subscriptionId);
  }

  handleObservations(batch: ObservationBatch): void {
    this.enqueueWork((state) => detectChanges(batch, state));
  }

  handleFailure(failure: LiveFailure): void {
    this.enqueueWork((state) => detectFailure(failure, state));
  }

  /** A product answer (route or tracking run) made at `observedAt`: spread.above and price.new_low per size. */
  handleProductAnswer(answer: ProductAnswer, observedAt: number): void {
    this.enqueueWork((state) => detectProductChanges(answer, observedAt, state));
  }

  /** Resolves once every observation handed in so far is detected and its deliveries queued. */
  async idle(): Promise<void> {
    while (this.draining) await this.draining;
  }

  /** Queues a `webhook.test` message for one subscription (POST /webhooks/:id/test, `marketlens webhooks test`). */
  async sendTest(sub: Subscription): Promise<void> {
    const message: WebhookMessage = {
      type: TEST_EVENT,
      timestamp: new Date().toISOString(),
      data: {
        subscription_id: sub.id,
        message: 'Test delivery from marketlens: your endpoint is reachable and verifies signatures.',
      },
    };
    this.queued(
      await this.queue.enqueue([{ subscriptionId: sub.id, eventType: TEST_EVENT, payload: JSON.stringify(message) }]),
    );
  }

  /** Committed deliveries go out now: a BullMQ job per subscription when configured, else the database loop looks. */
  private queued(enqueued: Enqueued[]): void {
    if (enqueued.length === 0) return;
    this.lane.queued(enqueued.map((e) => ({ id: e.id, group: e.subscriptionId })));
  }

  private enqueueWork(detect: Work): void {
    if (this.pending.length >= BACKLOG_MAX) return this.drop(1, 'alert detection backlog full; observations dropped');
    this.pending.push(detect);
    if (this.pending.length === BACKLOG_WARN)
      this.log.warn({ backlog: this.pending.length }, 'alert detection is falling behind');
    this.draining ??= this.drain().finally(() => (this.draining = undefined));
  }

  /**
   * Detection and enqueueing of what is pending, up to GROUP observations per transaction: one commit (one fsync on
   * SQLite) per group instead of several per observation. A group that fails (e.g. a PostgreSQL deadlock between
   * two instances) rolled back entirely, so it is simply run again; one still refused after GROUP_ATTEMPTS is run
   * again one observation per transaction, so only what the database refuses is skipped (logged). While the
   * database is unavailable (down, restarting, busy, full) the group is kept and tried again after a growing pause,
   * for as long as it takes.
   */
  private async drain(): Promise<void> {
    let pauseMs = 0;
    while (this.pending.length > 0) {
      // After a refused group its observations run one per transaction (`singles`), then grouping resumes.
      const group = this.pending.splice(0, this.singles > 0 ? 1 : GROUP);
      if (this.singles > 0) this.singles--;
      for (let attempt = 1; ; attempt++) {
        try {
          // Read before the transaction: on SQLite the transaction holds the one connection until it commits.
          const index = await this.subscriptions.index();
          const queued = await this.db.transaction().execute(async (trx) => {
            const state = new AlertState(trx);
            const events: DetectedEvent[] = [];
            for (const detect of group) events.push(...(await detect(state)));
            return this.fanOut(events, index, new DeliveryQueue(trx));
          });
          this.queued(queued);
          if (pauseMs > 0)
            this.log.warn({ observations: this.pending.length + group.length }, 'alert detection resumed');
          pauseMs = 0;
          break;
        } catch (e) {
          if (isStoreUnavailable(e)) {
            if (this.closing) {
              this.drop(
                group.length + this.pending.splice(0).length,
                'alert detection stopped: database unavailable at shutdown',
              );
              return;
            }
            if (pauseMs === 0)
              this.log.warn(
                { err: e, observations: group.length + this.pending.length },
                'alert detection waits for the database (unavailable)',
              );
            pauseMs = Math.min(RETRY_MAX_MS, Math.max(RETRY_MIN_MS, pauseMs * 2));
            await this.pause(pauseMs);
            attempt = 0;
            continue;
          }
          if (attempt < GROUP_ATTEMPTS) continue;
          if (group.length > 1) {
            // Something in the group is refused: one observation per group, so only what is refused is skipped.
            this.pending.unshift(...group);
            this.singles += group.length;
            break;
          }
          this.log.error({ err: e, observations: 1 }, 'alert detection failed; this observation was skipped');
          break;
        }
      }
    }
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.endPause = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  private drop(n: number, msg: string): void {
    this.dropped += n;
    const now = Date.now();
    if (now - this.lastDropLog < DROP_LOG_EVERY_MS) return;
    this.lastDropLog = now;
    this.log.error({ observations: n, dropped: this.dropped }, msg);
  }

  private async fanOut(events: DetectedEvent[], index: SubscriptionIndex, queue: DeliveryQueue): Promise<Enqueued[]> {
    if (events.length === 0) return [];
    const now = new Date();
    const queued: QueuedMessage[] = [];
    for (const event of events) {
      for (const sub of index.candidates(event)) {
        for (const m of messagesFor(event, sub, now))
          queued.push({ subscriptionId: sub.id, eventType: m.type, payload: JSON.stringify(m) });
      }
    }
    return queue.enqueue(queued);
  }
}
