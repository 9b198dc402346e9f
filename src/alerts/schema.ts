/**
 * The alert tables (composed into the store's Database type in src/store/schema.ts) and their DDL, applied by
 * migration 0003-alerts. Store conventions: epoch-ms bigint timestamps, 0/1 integer booleans, text ids, JSON as text.
 */
import type { UntypedTables } from '../store/untyped-tables.js';
import type { Kysely } from 'kysely';

export interface AlertSubscriptionsTable {
  id: string;
  key_id: string;
  url: string;
  /** JSON array of event types. */
  events: string;
  /** JSON object (WebhookFilter). */
  filter: string;
  description: string | null;
  /** The signing secret: kept in clear because every delivery is signed with it. */
  secret: string;
  /**
   * A notification channel's settings (src/alerts/channels/types.ts) as JSON, secrets included and kept in clear like
   * `secret` (every delivery needs them); null for a webhook. Then `url` holds the channel's target without secrets.
   * Added by migration 0005-alert-channels.
   */
  channel: string | null;
  enabled: number;
  disabled_reason: string | null;
  /** First failed delivery of the current failure streak; null while deliveries succeed. */
  failing_since: number | null;
  created_at: number;
  updated_at: number;
}

export interface AlertStateTable {
  /** What the value is of: `price|…`, `listings|…`, `failure|…`. */
  key: string;
  /** JSON of the last value. */
  value: string;
  observed_at: number;
  /** Bumped on every write: the compare-and-set token. */
  version: number;
}

export interface AlertDeliveriesTable {
  /** Delivery order: per subscription, the lowest seq is delivered first (sortable text, see queue.ts). */
  seq: string;
  /** The webhook-id, the same across retries. */
  id: string;
  subscription_id: string;
  event_type: string;
  /** The JSON message body (type, timestamp, data). */
  payload: string;
  status: 'pending' | 'inflight' | 'delivered' | 'failed';
  attempts: number;
  next_attempt_at: number;
  /** Who holds the in-flight claim, and until when (a crashed holder's claim expires). */
  lease: string | null;
  locked_until: number | null;
  first_attempt_at: number | null;
  last_attempt_at: number | null;
  response_code: number | null;
  latency_ms: number | null;
  error: string | null;
  created_at: number;
  delivered_at: number | null;
}

export interface AlertTables {
  alert_subscriptions: AlertSubscriptionsTable;
  alert_state: AlertStateTable;
  alert_deliveries: AlertDeliveriesTable;
}

/** Creates the alert tables. */
export async function createAlertTables(db: Kysely<UntypedTables>): Promise<void> {
  const ms = 'bigint';
  await db.schema
    .createTable('alert_subscriptions')

    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('key_id', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('events', 'text', (c) => c.notNull())
    .addColumn('filter', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('disabled_reason', 'text')
    .addColumn('failing_since', ms)
    .addColumn('created_at', ms, (c) => c.notNull())
    .addColumn('updated_at', ms, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('alert_subscriptions_key').on('alert_subscriptions').column('key_id').execute();
  await db.schema
    .createTable('alert_state')

    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('observed_at', ms, (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('alert_deliveries')

    .addColumn('seq', 'text', (c) => c.primaryKey())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('subscription_id', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', ms, (c) => c.notNull())
    .addColumn('lease', 'text')
    .addColumn('locked_until', ms)
    .addColumn('first_attempt_at', ms)
    .addColumn('last_attempt_at', ms)
    .addColumn('response_code', 'integer')
    .addColumn('latency_ms', 'integer')
    .addColumn('error', 'text')
    .addColumn('created_at', ms, (c) => c.notNull())
    .addColumn('delivered_at', ms)
    .execute();
  await db.schema
    .createIndex('alert_deliveries_sub_seq')
    .on('alert_deliveries')
    .columns(['subscription_id', 'seq'])
    .execute();
  await db.schema
    .createIndex('alert_deliveries_due')
    .on('alert_deliveries')
    .columns(['status', 'next_attempt_at'])
    .execute();
}
