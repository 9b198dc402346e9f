/**
 * The durable delivery queue, in the database. A delivery is claimed by a conditional UPDATE (the row's status and
 * attempt count must still be what the claimer read), so of several instances polling the same rows exactly one
 * wins each attempt. Only the head of each subscription's queue (its lowest pending seq) is claimable, which keeps
 * deliveries in order per subscription. A claim is a lease: an instance killed mid-delivery loses it after
 * `leaseMs` and the row is claimed again, so a crash loses nothing.
 */
import { randomUUID } from 'node:crypto';
import type { Kysely, SelectQueryBuilder } from 'kysely';
import type { AlertDeliveriesTable, AlertTables } from './schema.js';
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
  eventType: string;
  payload: string;
  attempts: number;
  firstAttemptAt: number;
  lease: string;
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
    'seq' | 'id' | 'subscription_id' | 'event_type' | 'payload' | 'attempts' | 'status' | 'first_attempt_at'
  >
>;

let counter = 0;
const instance = randomUUID().slice(0, 8);

/** Sortable across instances by enqueue time, then by this process's own order. */
function nextSeq(now: number): string {
  counter = (counter + 1) % 1e9;
  return `${String(now).padStart(15, '0')}-${String(counter).padStart(9, '0')}-${instance}`;
}

export class DeliveryQueue {
  constructor(private readonly db: Kysely<AlertTables>) {}

  async enqueue(messages: readonly QueuedMessage[], now = Date.now()): Promise<void> {
    if (messages.length === 0) return;
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
  }

  /** Claims up to `limit` due deliveries (at most one per subscription) for `leaseMs`. */
  async claim(limit: number, leaseMs: number, now = Date.now()): Promise<Claimed[]> {
    // Two queries rather than one OR: each walks its own index in order and stops after `limit` heads, instead of
    // testing every queued row for being its subscription's head.
    const expired = await this.heads(limit, (q) =>
      q.where('d.status', '=', 'inflight').where('d.locked_until', '<', now).orderBy('d.locked_until'),
    );
    const due =
      expired.length >= limit
        ? []
        : await this.heads(limit - expired.length, (q) =>
            q.where('d.status', '=', 'pending').where('d.next_attempt_at', '<=', now).orderBy('d.next_attempt_at'),
          );
    const candidates = [...expired, ...due];
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
