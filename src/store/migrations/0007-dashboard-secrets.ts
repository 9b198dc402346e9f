/**
 * The dashboard's secrets (src/dashboard/secret.ts): the key that signs session cookies, created once by the first
 * instance that starts and read by every other, so a session signed by one instance is valid on all of them.
 */
import type { Kysely, Migration } from 'kysely';

export const dashboardSecretsMigration: Migration = { up, down };

async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('dashboard_secrets')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
}

async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('dashboard_secrets').ifExists().execute();
}
