/** Versioned migrations (./migrations/index.ts) applied with Kysely's Migrator, which locks on both engines. */
import { Migrator, type Kysely, type MigrationInfo } from 'kysely';
import { MIGRATIONS } from './migrations/index.js';
import { StoreError } from './store-error.js';

function migrator<DB>(db: Kysely<DB>): Migrator {
  return new Migrator({ db, provider: { getMigrations: async () => MIGRATIONS } });
}

/** Applies every pending migration; returns the names applied now. Throws a StoreError naming the failed one. */
export async function migrateToLatest<DB>(db: Kysely<DB>, where: string): Promise<string[]> {
  const { error, results } = await migrator(db).migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName;
    const reason = error instanceof Error ? error.message : String(error);
    throw new StoreError(`Database migration ${failed ?? ''} failed on ${where}: ${reason}`.replace('  ', ' '), {
      cause: error,
    });
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/** Every known migration and when it was applied (undefined = pending). */
export async function migrationStatus<DB>(db: Kysely<DB>): Promise<MigrationInfo[]> {
  return [...(await migrator(db).getMigrations())];
}
