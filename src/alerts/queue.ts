/**
 * The durable delivery queue, in the database. A delivery is claimed by a conditional UPDATE (the row's status and
 * attempt count must still be what the claimer read), so of several instances polling the same rows exactly one
 * wins each attempt. Only the head of each subscription's queue (its lowest pending seq) is claimable, which keeps
 * deliveries in order per subscription. A claim is a lease: an instance killed mid-delivery loses it after
 * `leaseMs` and the row is claimed again, so a crash loses nothing. This is the store of the job runner's alert lane
 * (delivery-lane.ts): with Redis configured, BullMQ jobs say when to claim which subscription's head (claimHead,
 * src/jobs/lane-bullmq.ts); the rows stay here, the record and the order.
 */
import { randomUUID } from 'node:crypto';
import { sql, type Kysely, type SelectQueryBuilder } from 'kysely';
import type { AlertDeliveriesTable, AlertTables } from './schema.js';
import type { ClaimExclusions, SendShares } from './send-shares.js';
import { generateMessageId } from './signing.js';

export interface QueuedMessage {
  subscriptionId: string;
  eventType: string;
  payload: string;
}

export interface Claimed {
  seq: string;
  id: string;
  subscriptionId: string;
  /** The subscription's key and URL at claim time (what its send slot was counted against). */
  keyId: string;
  url: string;
  eventType: string;
  payload: string;
  attempts: number;
  firstAttemptAt: number;
  lease: string;
}

/** A queued delivery, as the dispatcher names it. */
export interface Enqueued {
  id: string;
  subscriptionId: string;
}

/** The first unfinished delivery of an enabled subscription: what has to happen next for it, and when. */
export interface Head {
  id: string;
  subscriptionId: string;
  status: 'pending' | 'inflight';
  attempts: number;
  /** pending: when it is due; inflight: when its lease expires. */
  at: number;
}

export type Outcome =
  | { kind: 'delivered'; responseCode: number; latencyMs: number }
  | { kind: 'retry'; nextAttemptAt: number; responseCode: number | null; latencyMs: number | null; error: string }
  | { kind: 'failed'; responseCode: number | null; latencyMs: number | null; error: string };

export interface DeliveryRecord {
  id: string;
  event_type: string;
  status: AlertDeliveriesTable['status'];
  attempts: number;
  response_code: number | null;
  latency_ms: number | null;
  error: string | null;
  created_at: string;
  last_attempt_at: string | null;
  next_attempt_at: string | null;
  delivered_at: string | null;
}

type HeadQuery = SelectQueryBuilder<
  AlertTables & { d: AlertTables['alert_deliveries']; s: AlertTables['alert_subscriptions'] },
  'd' | 's',
  Pick<
    AlertDeliveriesTable,
    | 'seq'
    | 'id'
    | 'subscription_id'
    | 'event_type'
    | 'payload'
    | 'attempts'
    | 'status'
    | 'first_attempt_at'
    | 'next_attempt_at'
    | 'locked_until'
  > & { key_id: string; url: string }
>;

/** Claim rounds per call: each round either claims or adds a newly full share to the exclusions. */
const CLAIM_ROUNDS = 8;

/** The claim query without the subscriptions whose key or (key, target) is at its share. */
function excluding(q: HeadQuery, ex: ClaimExclusions | undefined): HeadQuery {
  if (!ex) return q;
  if (ex.keys.length > 0) q = q.where('s.key_id', 'not in', ex.keys);
  for (const t of ex.targets) {
    q = q.where((eb) =>
      eb.not(
        eb.and([
          eb('s.key_id', '=', t.keyId),
          eb(sql<string>`substr(${sql.ref('s.url')}, 1, ${sql.lit(t.prefix.length)})`, '=', t.prefix),
        ]),
      ),
    );
  }
  return q;
}

let counter = 0;
const instance = randomUUID().slice(0, 8);

/** Sortable across instances by enqueue time, then by this process's own order. */
function nextSeq(now: number): string {
  counter = (counter + 1) % 1e9;
  return `${String(now).padStart(15, '0')}-${String(counter).padStart(9, '0')}-${instance}`;
}

function toHead(r: {
  id: string;
  subscription_id: string;
  status: AlertDeliveriesTable['status'];
  attempts: number;
  next_attempt_at: number;
  locked_until: number | null;
}): Head {
  const inflight = r.status === 'inflight';
  return {
    id: r.id,
    subscriptionId: r.subscription_id,
    status: inflight ? 'inflight' : 'pending',
    attempts: Number(r.attempts),
    at: Number(inflight ? r.locked_until : r.next_attempt_at),
  };
}

export class DeliveryQueue {
  constructor(private readonly db: Kysely<AlertTables>) {}

  /** Queues the messages (in this order, after whatever each subscription has queued); returns them as queued. */
  async enqueue(messages: readonly QueuedMessage[], now = Date.now()): Promise<Enqueued[]> {
    if (messages.length === 0) return [];
    const rows: AlertDeliveriesTable[] = messages.map((m) => ({
      seq: nextSeq(now),
      id: generateMessageId(),
      subscription_id: m.subscriptionId,
      event_type: m.eventType,
      payload: m.payload,
      status: 'pending',
      attempts: 0,
      next_attempt_at: now,
      lease: null,
      locked_until: null,
      first_attempt_at: null,
      last_attempt_at: null,
      response_code: null,
      latency_ms: null,
      error: null,
      created_at: now,
      delivered_at: null,
    }));
    // Bounded statements: both engines cap bound parameters per statement.
    for (let i = 0; i < rows.length; i += 500)
      await this.db
        .insertInto('alert_deliveries')
        .values(rows.slice(i, i + 500))
        .execute();
    return rows.map((r) => ({ id: r.id, subscriptionId: r.subscription_id }));
  }

  /**
   * Claims up to `limit` due deliveries (at most one per subscription) for `leaseMs`. With `shares`, each claim takes
   * a send slot of its key and target, and subscriptions over a share are left for later (send-shares.ts).
   */
  async claim(limit: number, leaseMs: number, now = Date.now(), shares?: SendShares): Promise<Claimed[]> {
    const claimed: Claimed[] = [];
    for (let round = 0; round < CLAIM_ROUNDS && claimed.length < limit; round++) {
      const want = limit - claimed.length;
      const ex = shares?.exclusions();
      // Two queries rather than one OR: each walks its own index in order and stops after `want` heads, instead of
      // testing every queued row for being its subscription's head.
      const expired = await this.heads(want, (q) =>
        excluding(q, ex).where('d.status', '=', 'inflight').where('d.locked_until', '<', now).orderBy('d.locked_until'),
      );
      const due =
        expired.length >= want
          ? []
          : await this.heads(want - expired.length, (q) =>
              excluding(q, ex)
                .where('d.status', '=', 'pending')
                .where('d.next_attempt_at', '<=', now)
                .orderBy('d.next_attempt_at'),
            );
      const candidates = [...expired, ...due];
      const admitted = shares ? candidates.filter((c) => shares.take(c.key_id, c.url)) : candidates;
      const won = await this.claimRows(admitted, leaseMs, now);
      if (shares) {
        const kept = new Set(won.map((c) => c.seq));
        for (const c of admitted) if (!kept.has(c.seq)) shares.release(c.key_id, c.url);
      }
      claimed.push(...won);
      // Done when the queue has no more due heads, or nothing was skipped for a share (the next round would find
      // the same rows); otherwise the skipped ones' shares are now excluded, and the next round looks past them.
      if (candidates.length < want || admitted.length === candidates.length) break;
    }
    return claimed;
  }

  /**
   * Claims the subscription's head if it is due (or its lease expired). Otherwise `head` says what it waits for;
   * neither is set when the subscription has nothing queued (or is disabled), or another instance won the claim.
   */
  async claimHead(
    subscriptionId: string,
    leaseMs: number,
    now = Date.now(),
  ): Promise<{ claimed?: Claimed; head?: Head }> {
    const [row] = await this.heads(1, (q) => q.where('d.subscription_id', '=', subscriptionId));
    if (!row) return {};
    const head = toHead(row);
    if (head.status === 'pending' ? head.at > now : head.at >= now) return { head };
    const [claimed] = await this.claimRows([row], leaseMs, now);
    return claimed ? { claimed } : {};
  }

  /** The subscription's head (when it is enabled and has one). */
  async head(subscriptionId: string): Promise<Head | undefined> {
    const [head] = await this.heads(1, (q) => q.where('d.subscription_id', '=', subscriptionId));
    return head && toHead(head);
  }

  /** Up to `limit` heads of enabled subscriptions, pending or in flight, due or not. */
  async allHeads(limit: number): Promise<Head[]> {
    return (await this.heads(limit, (q) => q)).map(toHead);
  }

  /** Claims each candidate unless another instance changed it first (its status or attempts differ). */
  private async claimRows(
    candidates: Awaited<ReturnType<DeliveryQueue['heads']>>,
    leaseMs: number,
    now: number,
  ): Promise<Claimed[]> {
    const claimed: Claimed[] = [];
    for (const c of candidates) {
      const lease = randomUUID();
      const won = await this.db
        .updateTable('alert_deliveries')
        .set({
          status: 'inflight',
          lease,
          locked_until: now + leaseMs,
          attempts: c.attempts + 1,
          first_attempt_at: c.first_attempt_at ?? now,
          last_attempt_at: now,
        })
        .where('seq', '=', c.seq)
        .where('status', '=', c.status)
        .where('attempts', '=', c.attempts)
        .executeTakeFirst();
      if (Number(won.numUpdatedRows) !== 1) continue; // another instance claimed it first
      claimed.push({
        seq: c.seq,
        id: c.id,
        subscriptionId: c.subscription_id,
        keyId: c.key_id,
        url: c.url,
        eventType: c.event_type,
        payload: c.payload,
        attempts: c.attempts + 1,
        firstAttemptAt: c.first_attempt_at === null ? now : Number(c.first_attempt_at),
        lease,
      });
    }
    return claimed;
  }

  /** Due rows that are the head of their (enabled) subscription's queue. */
  private heads(limit: number, narrow: (q: HeadQuery) => HeadQuery) {
    const base = this.db
      .selectFrom('alert_deliveries as d')
      .innerJoin('alert_subscriptions as s', 's.id', 'd.subscription_id')
      .select([
        'd.seq',
        'd.id',
        'd.subscription_id',
        'd.event_type',
        'd.payload',
        'd.attempts',
        'd.status',
        'd.first_attempt_at',
        'd.next_attempt_at',
        'd.locked_until',
        's.key_id',
        's.url',
      ])
      .where('s.enabled', '=', 1)
      .where((eb) =>
        eb(
          'd.seq',
          '=',
          eb
            .selectFrom('alert_deliveries as h')
            .select((h) => h.fn.min('h.seq').as('head'))
            .whereRef('h.subscription_id', '=', 'd.subscription_id')
            .where('h.status', 'in', ['pending', 'inflight']),
        ),
      );
    return narrow(base).limit(limit).execute();
  }

  /** Records an attempt's outcome; ignored when the lease was lost (the row was re-claimed after expiry). */
  async complete(claim: Claimed, outcome: Outcome, now = Date.now()): Promise<boolean> {
    const base = {
      lease: null,
      locked_until: null,
      response_code: outcome.responseCode,
      latency_ms: outcome.latencyMs,
    };
    const set =
      outcome.kind === 'delivered'
        ? { ...base, status: 'delivered' as const, delivered_at: now, error: null }
        : outcome.kind === 'retry'
          ? { ...base, status: 'pending' as const, next_attempt_at: outcome.nextAttemptAt, error: outcome.error }
          : { ...base, status: 'failed' as const, error: outcome.error };
    const r = await this.db
      .updateTable('alert_deliveries')
      .set(set)
      .where('seq', '=', claim.seq)
      .where('lease', '=', claim.lease)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /** The subscription's latest deliveries, newest first. */
  async list(subscriptionId: string, limit: number): Promise<DeliveryRecord[]> {
    const rows = await this.db
      .selectFrom('alert_deliveries')
      .selectAll()
      .where('subscription_id', '=', subscriptionId)
      .orderBy('seq', 'desc')
      .limit(limit)
      .execute();
    const iso = (v: number | null) => (v === null ? null : new Date(Number(v)).toISOString());
    return rows.map((r) => ({
      id: r.id,
      event_type: r.event_type,
      status: r.status,
      attempts: Number(r.attempts),
      response_code: r.response_code === null ? null : Number(r.response_code),
      latency_ms: r.latency_ms === null ? null : Number(r.latency_ms),
      error: r.error,
      created_at: iso(r.created_at)!,
      last_attempt_at: iso(r.last_attempt_at),
      next_attempt_at: r.status === 'pending' ? iso(r.next_attempt_at) : null,
      delivered_at: iso(r.delivered_at),
    }));
  }

  /** Deliveries not yet finished (pending or in flight), for tests and shutdown logs. */
  async pendingCount(): Promise<number> {
    const r = await this.db
      .selectFrom('alert_deliveries')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('status', 'in', ['pending', 'inflight'])
      .executeTakeFirstOrThrow();
    return Number(r.n);
  }
}
