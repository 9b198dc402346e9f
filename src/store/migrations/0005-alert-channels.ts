/**
 * Alert subscriptions may send to a notification channel (Telegram, ntfy, e-mail: src/alerts/channels/) instead of
 * a webhook: the channel's settings, secrets included, as JSON; null for a webhook subscription.
 */
import type { Kysely, Migration } from 'kysely';

export const alertChannelsMigration: Migration = { up, down };

async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('alert_subscriptions').addColumn('channel', 'text').execute();
}

async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('alert_subscriptions').dropColumn('channel').execute();
}
