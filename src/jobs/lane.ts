/**
 * Ordered deliveries, the second kind of job the runner runs: one-off items queued per group (alerts: one webhook
 * subscription's deliveries), run one at a time per group in queue order, retried with backoff, durable across
 * restarts. A lane's owner keeps the items in its own table and says what running one means (the store and `run`
 * below: alerts' DeliveryQueue and sender); the runner decides when to claim what on this instance — lane-db.ts polls
 * the store, lane-bullmq.ts dispatches BullMQ jobs with a slow database sweep beside them.
 *
 * What the store promises (and the runner relies on): only the head of a group (its first unfinished item) is
 * claimable, so a group's items run in order, a retried head holding back the ones behind it; a claim is a lease
 * won by exactly one instance (a compare-and-set), and an instance killed mid-run loses it after `leaseMs`, so the
 * head is claimed again and nothing is lost.
 */
import type { Logger } from '../platform/logger.js';

/** A claimed item: the lease-holder's view of it. */
export interface LaneClaim {
  id: string;
  group: string;
  /** Attempts so far, this one included. */
  attempts: number;
}

/** A group's head: what has to happen next for the group, and when. */
export interface LaneHead {
  id: string;
  group: string;
  status: 'pending' | 'inflight';
  /** Attempts made so far. */
  attempts: number;
  /** pending: when it is due; inflight: when its lease expires. */
  at: number;
}

/** What an attempt recorded: run again at `nextAttemptAt`, or finished (the group's next item may go). */
export type LaneOutcome = { kind: 'retry'; nextAttemptAt: number } | { kind: 'delivered' | 'failed' };

/** A queued item, as the runner is told of it once committed. */
export interface LaneItem {
  id: string;
  group: string;
}

export interface LaneStore<C extends LaneClaim> {
  /** Claims up to `limit` due heads (at most one per group) for `leaseMs`, including heads whose lease expired. */
  claim(limit: number, leaseMs: number, now: number): Promise<C[]>;
  /** Claims the group's head if it is due; otherwise `head` says what it waits for (neither: nothing to do). */
  claimHead(group: string, leaseMs: number, now: number): Promise<{ claimed?: C; head?: LaneHead }>;
  head(group: string): Promise<LaneHead | undefined>;
  /** Up to `limit` heads, due or not: what a starting instance schedules (BullMQ). */
  heads(limit: number): Promise<LaneHead[]>;
}

export interface LaneTiming {
  /** Without Redis: how often the store is polled when nothing woke the lane. */
  pollMs: number;
  /** With Redis: the same, as a safety sweep beside BullMQ (nothing depends on Redis alone). */
  sweepMs: number;
  /** How long a claim lasts: longer than a run may take, so only a crashed instance's claims expire. */
  leaseMs: number;
  /** Items in flight at once on this instance (each of a different group). */
  concurrency: number;
  /** BullMQ: how long a job whose group may not run now (`admit`) waits before it is looked at again (± 25 %). */
  deferMs: number;
}

export interface LaneSpec<C extends LaneClaim> {
  /** The lane's BullMQ queue (under `${MARKETLENS_REDIS_PREFIX}bull`), and the first word of its log lines. */
  name: string;
  label: string;
  store: LaneStore<C>;
  /** Runs one claimed item and records its outcome in the store; the outcome recorded, if one was. */
  run(claim: C): Promise<LaneOutcome | undefined>;
  /** After a claim of `store.claim` ran, whatever happened: frees what the claim took (alerts: send slots). */
  finished?(claim: C): void;
  /**
   * BullMQ: before claiming a group's head, take what its run needs (alerts: a send slot); false when it may not
   * run now (the job is deferred about `deferMs`), else a release called once the job is done.
   */
  admit?(group: string): Promise<false | (() => void)>;
  timing: LaneTiming;
  log: Logger;
}

/** A lane as its owner uses it once registered on the runner. */
export interface Lane {
  /** After the items are committed: run them now rather than at the next poll. */
  queued(items: readonly LaneItem[]): void;
  /** A group that could not run (alerts: a disabled subscription) may again: its head goes now. */
  resume(group: string): void;
}

/** A lane as a backend runs it. */
export interface LaneRunner extends Lane {
  start(): void;
  stop(): Promise<void>;
}
