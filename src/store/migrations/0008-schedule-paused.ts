/**
 * Pausing a scheduled job (issue 31: the dashboard's "pause" for a tracked product): `paused_at` is when it was
 * paused, null while it runs. A paused job keeps its row, its history and its place under the per-key cap; neither
 * scheduler runs it until it is resumed. A timestamp rather than a boolean: one spelling on both engines, and it says
 * since when.
 */
import type { Kysely, Migration } from 'kysely';

export const schedulePausedMigration: Migration = { up, down };

async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('schedule_jobs').addColumn('paused_at', 'bigint').execute();
}

async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('schedule_jobs').dropColumn('paused_at').execute();
}
