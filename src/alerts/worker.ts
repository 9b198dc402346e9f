/**
 * One delivery attempt, what the job runner's alert lane runs (delivery-lane.ts) for a claimed row, whether the
 * database loop or a BullMQ job claimed it: sign, send, record the outcome, and decide what a failure means. Retries
 * back off exponentially with jitter (honouring Retry-After) for up to 24 h after the first attempt; a subscription
 * whose deliveries keep failing for 3 days is disabled with a reason.
 *
 * Slow or dead receivers are isolated (issue 27, item 5): a key, and a key's target host, hold at most their share of
 * the send slots (send-shares.ts); and a subscription whose sends keep timing out is retried with delays that grow
 * with its streak of timeouts (not only with one delivery's attempts) and sent with a shortened timeout — every
 * FULL_TIMEOUT_EVERY-th send of the streak gets the whole timeout, so a receiver that is slow rather than dead
 * still gets through. Any answer ends the streak.
 */
import { bodyFor } from './chat-format.js';
import type { ChannelSender } from './channels/send-channel.js';
import type { LaneTiming } from '../jobs/index.js';
import type { Claimed, DeliveryQueue, Outcome } from './queue.js';
import type { Sender, SendOptions, SendResult } from './send.js';
import { SendShares } from './send-shares.js';
import { signatureHeaders } from './signing.js';
import type { Subscription, Subscriptions } from './subscriptions.js';

/** The lane's timing (pollMs, sweepMs, leaseMs, concurrency, deferMs: see LaneTiming), and what a retry means. */
export interface DeliveryTiming extends LaneTiming {
  /** First retry delay; doubles per attempt (± 25 % jitter) up to `maxDelayMs`. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** No retry is scheduled later than this after the first attempt. */
  giveUpAfterMs: number;
  /** A subscription failing this long is disabled. */
  disableAfterMs: number;
  /** Of the `concurrency` send slots, the most one key may hold (so another key always finds free slots). */
  keyShare: number;
  /** The most one key may hold towards one target (scheme, host, port): a dead backend holds only these. */
  targetShare: number;
  /** Per-attempt send timeout. */
  sendTimeoutMs: number;
  /** The shortest timeout a subscription in a streak of timeouts is sent with. */
  minSendTimeoutMs: number;
}

export const DEFAULT_TIMING: DeliveryTiming = {
  baseDelayMs: 5_000,
  maxDelayMs: 3_600_000,
  giveUpAfterMs: 24 * 3_600_000,
  disableAfterMs: 3 * 24 * 3_600_000,
  pollMs: 500,
  sweepMs: 30_000,
  leaseMs: 30_000,
  concurrency: 64,
  keyShare: 32,
  targetShare: 8,
  deferMs: 1_000,
  sendTimeoutMs: 10_000,
  minSendTimeoutMs: 2_000,
};

/** In a streak of timeouts, every this-many-th send gets the whole timeout (a slow receiver is not a dead one). */
export const FULL_TIMEOUT_EVERY = 4;
/** Streaks remembered at most (the oldest forgotten first): subscriptions created and deleted cannot grow it. */
const MAX_STREAKS = 10_000;

/** Delay before attempt `attempts + 1`, jittered so receivers coming back are not hit by every retry at once. */
export function backoffMs(
  attempts: number,
  timing: Pick<DeliveryTiming, 'baseDelayMs' | 'maxDelayMs'>,
  random = Math.random,
): number {
  const raw = Math.min(timing.maxDelayMs, timing.baseDelayMs * 2 ** Math.max(0, attempts - 1));
  return Math.round(raw * (0.75 + random() * 0.5));
}

export class DeliveryWorker {
  /** Consecutive timed-out sends per subscription, on this instance; an answer of any kind removes the entry. */
  private readonly timeouts = new Map<string, number>();
  /** This instance's send slots by key and target: the lane's claims and BullMQ jobs take them. */
  readonly shares: SendShares;

  constructor(
    private readonly queue: DeliveryQueue,
    private readonly subscriptions: Subscriptions,
    private readonly sender: Sender,
    private readonly timing: DeliveryTiming,
    /** Telegram, ntfy and e-mail subscriptions are sent through this (one delivery, the same bookkeeping). */
    private readonly channels?: ChannelSender,
  ) {
    this.shares = new SendShares(timing.keyShare, timing.targetShare);
  }

  /** The subscription as the sender sees it (the cached enabled list first); undefined once deleted. */
  async subscription(id: string): Promise<Subscription | undefined> {
    const cached = (await this.subscriptions.enabled()).find((s) => s.id === id);
    return cached ?? (await this.subscriptions.get(null, id));
  }

  /** Signs, sends and records one claimed delivery; the outcome recorded, if one was (not for a deleted subscription). */
  async deliver(c: Claimed): Promise<Outcome | undefined> {
    const sub = await this.subscription(c.subscriptionId);
    if (!sub) return undefined; // deleted meanwhile: its deliveries went with it
    if (!sub.enabled) {
      // Back in the queue; no longer a head (only enabled subscriptions have heads) until it is enabled again.
      await this.queue.complete(c, {
        kind: 'retry',
        nextAttemptAt: Date.now(),
        responseCode: null,
        latencyMs: null,
        error: 'subscription disabled',
      });
      return undefined;
    }
    const streak = this.timeouts.get(sub.id) ?? 0;
    const result = await this.send(sub, c, { timeoutMs: this.timeoutFor(streak) });
    this.timeouts.delete(sub.id);
    if (result.timedOut) {
      this.timeouts.set(sub.id, streak + 1);
      if (this.timeouts.size > MAX_STREAKS) this.timeouts.delete(this.timeouts.keys().next().value!);
    }
    const now = Date.now();
    let outcome: Outcome;
    if (result.ok) {
      outcome = { kind: 'delivered', responseCode: result.status!, latencyMs: result.latencyMs! };
    } else {
      // A receiver that keeps timing out waits longer with each timeout, across its deliveries.
      const step = result.timedOut ? Math.max(c.attempts, streak + 1) : c.attempts;
      const wait = Math.max(backoffMs(step, this.timing), (result.retryAfterSeconds ?? 0) * 1000);
      const giveUp = now + wait - c.firstAttemptAt > this.timing.giveUpAfterMs;
      const error = result.error ?? 'failed';
      outcome =
        result.retryable && !giveUp
          ? {
              kind: 'retry',
              nextAttemptAt: now + wait,
              responseCode: result.status,
              latencyMs: result.latencyMs,
              error,
            }
          : {
              kind: 'failed',
              responseCode: result.status,
              latencyMs: result.latencyMs,
              error: result.retryable ? `gave up after ${c.attempts} attempts: ${error}` : error,
            };
    }
    const recorded = await this.queue.complete(c, outcome, now);
    if (!recorded) return undefined;
    // (failingSince from the cached row: recordFailure drops the cache when it starts a streak)
    if (outcome.kind === 'delivered') {
      if (sub.failingSince !== null) await this.subscriptions.recordSuccess(sub.id);
    } else await this.subscriptions.recordFailure(sub.id, now, this.timing.disableAfterMs);
    return outcome;
  }

  /** One attempt: to the subscription's channel, or signed to its webhook URL. */
  private async send(sub: Subscription, c: Claimed, options: SendOptions): Promise<SendResult> {
    if (sub.channel) {
      if (this.channels) return this.channels.send(sub.channel, c.payload, options);
      const error = 'notification channels are not configured on this instance';
      return { ok: false, retryable: true, status: null, latencyMs: null, retryAfterSeconds: null, error };
    }
    const body = bodyFor(new URL(sub.url), c.payload);
    const headers = signatureHeaders(sub.secret, c.id, Math.floor(Date.now() / 1000), body);
    return this.sender.send(sub.url, body, { ...headers }, options);
  }

  /** The send timeout after `streak` consecutive timeouts: halved each time down to the floor, whole every 4th. */
  private timeoutFor(streak: number): number {
    const { sendTimeoutMs, minSendTimeoutMs } = this.timing;
    if (streak === 0 || streak % FULL_TIMEOUT_EVERY === 0) return sendTimeoutMs;
    return Math.max(Math.min(minSendTimeoutMs, sendTimeoutMs), Math.round(sendTimeoutMs / 2 ** streak));
  }
}
