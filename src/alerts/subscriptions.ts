/**
 * Webhook subscriptions in the database, each owned by the API key that created it: every read and write by an
 * HTTP caller is scoped to its key id, so another key's subscription is simply not found (404).
 */
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { createWithinCap } from '../limits/caps.js';
import type { Engine } from '../store/index.js';
import { SubscriptionIndex } from './subscription-index.js';
import type { Subscription } from './subscription.js';
import type { EventType, WebhookFilter } from './events.js';
import type { AlertSubscriptionsTable, AlertTables } from './schema.js';
import { generateSecret } from './signing.js';
import type { Channel } from './channels/types.js';

export type { Subscription } from './subscription.js';

export interface NewSubscription {
  url: string;
  /** With a channel, `url` is its secret-free target (apprise.ts displayTarget). */
  channel?: Channel | null;
  events: EventType[];
  filter: WebhookFilter;
  description: string | null;
}

export type SubscriptionPatch = Partial<NewSubscription & { enabled: boolean }>;

/** How long the matcher's view of active subscriptions may lag writes made by another instance. */
const ACTIVE_TTL_MS = 2_000;

export class Subscriptions {
  private active?: { at: number; list: Promise<Subscription[]> };
  private indexed?: { list: Subscription[]; index: SubscriptionIndex };

  constructor(private readonly db: Kysely<AlertTables>) {}

  async create(keyId: string, input: NewSubscription, now = Date.now()): Promise<Subscription> {
    return this.insert(this.db, keyId, input, now);
  }

  /**
   * `create`, unless the key already owns `max` subscriptions: then 409 `limit_reached`. Parallel creates of one key
   * cannot overshoot (src/limits/caps.ts).
   */
  async createWithinCap(
    keyId: string,
    input: NewSubscription,
    cap: { engine: Engine; max: number },
    now = Date.now(),
  ): Promise<Subscription> {
    return createWithinCap(
      this.db,
      cap.engine,
      { what: 'webhook subscriptions', max: cap.max },
      keyId,
      async (trx) => {
        const r = await trx
          .selectFrom('alert_subscriptions')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('key_id', '=', keyId)
          .executeTakeFirstOrThrow();
        return Number(r.n);
      },
      (trx) => this.insert(trx, keyId, input, now),
    );
  }

  private async insert(
    db: Kysely<AlertTables>,
    keyId: string,
    input: NewSubscription,
    now: number,
  ): Promise<Subscription> {
    const row: AlertSubscriptionsTable = {
      id: `wh_${randomUUID().replaceAll('-', '')}`,
      key_id: keyId,
      url: input.url,
      events: JSON.stringify(input.events),
      filter: JSON.stringify(input.filter),
      description: input.description,
      secret: generateSecret(),
      channel: input.channel ? JSON.stringify(input.channel) : null,
      enabled: 1,
      disabled_reason: null,
      failing_since: null,
      created_at: now,
      updated_at: now,
    };
    await db.insertInto('alert_subscriptions').values(row).execute();
    this.active = undefined;
    return fromRow(row);
  }

  /** Every subscription of `keyId` (or of every key when null: the operator's CLI). */
  async list(keyId: string | null): Promise<Subscription[]> {
    let q = this.db.selectFrom('alert_subscriptions').selectAll().orderBy('created_at').orderBy('id');
    if (keyId !== null) q = q.where('key_id', '=', keyId);
    return (await q.execute()).map(fromRow);
  }

  async get(keyId: string | null, id: string): Promise<Subscription | undefined> {
    let q = this.db.selectFrom('alert_subscriptions').selectAll().where('id', '=', id);
    if (keyId !== null) q = q.where('key_id', '=', keyId);
    const row = await q.executeTakeFirst();
    return row ? fromRow(row) : undefined;
  }

  async update(
    keyId: string | null,
    id: string,
    patch: SubscriptionPatch,
    now = Date.now(),
  ): Promise<Subscription | undefined> {
    const set: Partial<AlertSubscriptionsTable> = { updated_at: now };
    if (patch.url !== undefined) {
      set.url = patch.url;
      set.channel = patch.channel ? JSON.stringify(patch.channel) : null;
    }
    if (patch.events !== undefined) set.events = JSON.stringify(patch.events);
    if (patch.filter !== undefined) set.filter = JSON.stringify(patch.filter);
    if (patch.description !== undefined) set.description = patch.description;
    if (patch.enabled !== undefined) {
      set.enabled = patch.enabled ? 1 : 0;
      // Re-enabling starts a fresh failure streak; disabling by hand says who did it.
      set.disabled_reason = patch.enabled ? null : 'disabled by its owner';
      if (patch.enabled) set.failing_since = null;
    }
    let q = this.db.updateTable('alert_subscriptions').set(set).where('id', '=', id);
    if (keyId !== null) q = q.where('key_id', '=', keyId);
    const result = await q.executeTakeFirst();
    this.active = undefined;
    if (Number(result.numUpdatedRows) === 0) return undefined;
    return this.get(keyId, id);
  }

  /** Deletes the subscription and its queued deliveries. */
  async remove(keyId: string | null, id: string): Promise<boolean> {
    const sub = await this.get(keyId, id);
    if (!sub) return false;
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('alert_deliveries').where('subscription_id', '=', id).execute();
      await trx.deleteFrom('alert_subscriptions').where('id', '=', id).execute();
    });
    this.active = undefined;
    return true;
  }

  /** Enabled subscriptions, cached briefly: the fan-out reads them for every detected change. */
  enabled(now = Date.now()): Promise<Subscription[]> {
    if (!this.active || now - this.active.at > ACTIVE_TTL_MS) {
      const list = this.db
        .selectFrom('alert_subscriptions')
        .selectAll()
        .where('enabled', '=', 1)
        .execute()
        .then((rows) => rows.map(fromRow));
      list.catch(() => (this.active = undefined));
      this.active = { at: now, list };
    }
    return this.active.list;
  }

  /** The enabled subscriptions, indexed for fan-out (rebuilt when the cached list is). */
  async index(): Promise<SubscriptionIndex> {
    const list = await this.enabled();
    if (this.indexed?.list !== list) this.indexed = { list, index: new SubscriptionIndex(list) };
    return this.indexed.index;
  }

  /** A delivery failed: start (or continue) the failure streak; past `disableAfterMs` the subscription is disabled. */
  async recordFailure(id: string, now: number, disableAfterMs: number): Promise<void> {
    const started = await this.db
      .updateTable('alert_subscriptions')
      .set({ failing_since: now })
      .where('id', '=', id)
      .where('failing_since', 'is', null)
      .executeTakeFirst();
    if (Number(started.numUpdatedRows) > 0) this.active = undefined;
    const disabled = await this.db
      .updateTable('alert_subscriptions')
      .set({
        enabled: 0,
        disabled_reason: `deliveries failed for ${Math.round(disableAfterMs / 3_600_000)} h`,
        updated_at: now,
      })
      .where('id', '=', id)
      .where('enabled', '=', 1)
      .where('failing_since', '<=', now - disableAfterMs)
      .executeTakeFirst();
    if (Number(disabled.numUpdatedRows) > 0) this.active = undefined;
  }

  async recordSuccess(id: string): Promise<void> {
    this.active = undefined;
    await this.db
      .updateTable('alert_subscriptions')
      .set({ failing_since: null })
      .where('id', '=', id)
      .where('failing_since', 'is not', null)
      .execute();
  }
}

function fromRow(r: AlertSubscriptionsTable): Subscription {
  return {
    id: r.id,
    keyId: r.key_id,
    url: r.url,
    events: JSON.parse(r.events) as EventType[],
    filter: JSON.parse(r.filter) as WebhookFilter,
    description: r.description,
    secret: r.secret,
    channel: r.channel ? (JSON.parse(r.channel) as Channel) : null,
    enabled: Number(r.enabled) === 1,
    disabledReason: r.disabled_reason,
    failingSince: r.failing_since === null ? null : Number(r.failing_since),
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
  };
}
