/**
 * Alert deliveries as a lane of the job runner (src/jobs/lane.ts): a group is a subscription, an item one of its
 * queued deliveries. The runner decides when to claim (polling the database, or BullMQ jobs with Redis); this says
 * what the alerts add — the rows and their claims (DeliveryQueue), one attempt (DeliveryWorker.deliver), and the
 * send slots a claim takes (send-shares.ts: the database claim skips subscriptions over a share, a BullMQ job for
 * one is deferred).
 */
import type { LaneClaim, LaneHead, LaneSpec, LaneStore } from '../jobs/index.js';
import type { Claimed, DeliveryQueue, Head } from './queue.js';
import type { SendShares } from './send-shares.js';
import type { Logger } from '../platform/logger.js';
import type { DeliveryTiming, DeliveryWorker } from './worker.js';

/** The lane's BullMQ queue (under `${MARKETLENS_REDIS_PREFIX}bull`): its name is in the docs and in Redis already. */
export const DELIVERY_QUEUE = 'webhooks';

export type LaneDelivery = Claimed & LaneClaim;

const toClaim = (c: Claimed): LaneDelivery => ({ ...c, group: c.subscriptionId });
const toHead = (h: Head): LaneHead => ({ ...h, group: h.subscriptionId });

/** The alert deliveries' rows as the lane's store; with `shares`, each database claim takes a send slot. */
export function deliveryStore(queue: DeliveryQueue, shares?: SendShares): LaneStore<LaneDelivery> {
  return {
    claim: async (limit, leaseMs, now) => (await queue.claim(limit, leaseMs, now, shares)).map(toClaim),
    claimHead: async (group, leaseMs, now) => {
      const { claimed, head } = await queue.claimHead(group, leaseMs, now);
      return { claimed: claimed && toClaim(claimed), head: head && toHead(head) };
    },
    head: async (group) => {
      const head = await queue.head(group);
      return head && toHead(head);
    },
    heads: async (limit) => (await queue.allHeads(limit)).map(toHead),
  };
}

export function deliveryLane(
  queue: DeliveryQueue,
  worker: DeliveryWorker,
  timing: DeliveryTiming,
  log: Logger,
): LaneSpec<LaneDelivery> {
  const { shares } = worker;
  return {
    name: DELIVERY_QUEUE,
    label: 'webhook',
    timing,
    log,
    store: deliveryStore(queue, shares),
    run: (c) => worker.deliver(c),
    // The database claim took the send slot (queue.claim with the shares).
    finished: (c) => shares.release(c.keyId, c.url),
    admit: async (group) => {
      const sub = await worker.subscription(group);
      // Deleted: the job claims nothing (its deliveries went with it), and takes no slot.
      if (!sub) return () => undefined;
      if (!shares.take(sub.keyId, sub.url)) return false;
      return () => shares.release(sub.keyId, sub.url);
    },
  };
}
