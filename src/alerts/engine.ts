/**
 * The alert engine: observations in (history.onObserved → handleObservations; liveResults.onFailure →
 * handleFailure), queued signed deliveries out. The listeners run on the lookup path, so they only chain the work
 * and return; detection, fan-out and enqueueing happen in order in the background.
 */
import type { Kysely } from 'kysely';
import type { ObservationBatch } from '../history/observation.js';
import type { LiveFailure } from '../operations/live-results.js';
import { detectChanges, detectFailure } from './detect.js';
import { TEST_EVENT, type DetectedEvent, type WebhookMessage } from './events.js';
import { messagesFor } from './match.js';
import { DeliveryQueue, type QueuedMessage } from './queue.js';
import type { AlertTables } from './schema.js';
import { createSender, type Sender } from './send.js';
import { AlertState } from './state.js';
import { Subscriptions, type Subscription } from './subscriptions.js';
import type { TargetPolicy } from './target-guard.js';
import { DEFAULT_TIMING, DeliveryWorker, type AlertLog, type DeliveryTiming } from './worker.js';

export interface AlertEngineOptions {
  db: Kysely<AlertTables>;
  policy: TargetPolicy;
  log: AlertLog;
  timing?: Partial<DeliveryTiming>;
  /** Per-attempt timeout (ms). */
  timeoutMs?: number;
  /** Tests replace the HTTP sender. */
  sender?: Sender;
}

/** Batches waiting for detection beyond which a warning is logged (the database is not keeping up). */
const BACKLOG_WARN = 10_000;

export class AlertEngine {
  readonly subscriptions: Subscriptions;
  readonly queue: DeliveryQueue;
  readonly policy: TargetPolicy;
  private readonly state: AlertState;
  private readonly worker: DeliveryWorker;
  private readonly sender: Sender;
  private readonly log: AlertEngineOptions['log'];
  private chain: Promise<void> = Promise.resolve();
  private backlog = 0;

  constructor(options: AlertEngineOptions) {
    this.policy = options.policy;
    this.log = options.log;
    this.subscriptions = new Subscriptions(options.db);
    this.queue = new DeliveryQueue(options.db);
    this.state = new AlertState(options.db);
    this.sender = options.sender ?? createSender(options.policy, options.timeoutMs ?? 10_000);
    this.worker = new DeliveryWorker(this.queue, this.subscriptions, this.sender, { ...DEFAULT_TIMING, ...options.timing }, options.log);
  }

  /** Starts delivering (claiming due deliveries, including those left by a previous run). */
  start(): void {
    this.worker.start();
  }

  async close(): Promise<void> {
    await this.idle();
    await this.worker.stop();
    this.sender.close();
  }

  handleObservations(batch: ObservationBatch): void {
    this.enqueueWork(() => detectChanges(batch, this.state));
  }

  handleFailure(failure: LiveFailure): void {
    this.enqueueWork(() => detectFailure(failure, this.state));
  }

  /** Resolves once every observation handed in so far is detected and its deliveries queued. */
  idle(): Promise<void> {
    return this.chain;
  }

  /** Queues a `webhook.test` message for one subscription (POST /webhooks/:id/test, `marketlens webhooks test`). */
  async sendTest(sub: Subscription): Promise<void> {
    const message: WebhookMessage = {
      type: TEST_EVENT,
      timestamp: new Date().toISOString(),
      data: { subscription_id: sub.id, message: 'Test delivery from marketlens: your endpoint is reachable and verifies signatures.' },
    };
    await this.queue.enqueue([{ subscriptionId: sub.id, eventType: TEST_EVENT, payload: JSON.stringify(message) }]);
    this.worker.wake();
  }

  private enqueueWork(detect: () => Promise<DetectedEvent[]>): void {
    this.backlog++;
    if (this.backlog === BACKLOG_WARN) this.log.warn({ backlog: this.backlog }, 'alert detection is falling behind');
    this.chain = this.chain
      .then(async () => this.fanOut(await detect()))
      .catch((e) => this.log.error({ err: e }, 'alert detection failed'))
      .finally(() => this.backlog--);
  }

  private async fanOut(events: DetectedEvent[]): Promise<void> {
    if (events.length === 0) return;
    const subs = await this.subscriptions.enabled();
    const now = new Date();
    const queued: QueuedMessage[] = [];
    for (const event of events) {
      for (const sub of subs) {
        for (const m of messagesFor(event, sub, now)) queued.push({ subscriptionId: sub.id, eventType: m.type, payload: JSON.stringify(m) });
      }
    }
    await this.queue.enqueue(queued);
    if (queued.length > 0) this.worker.wake();
  }
}
