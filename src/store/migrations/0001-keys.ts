/** API keys, the keys version counter (for cross-instance revocation), usage counts, legacy-import markers. */
import type { UntypedTables } from '../untyped-tables.js';
import type { Kysely, Migration } from 'kysely';

export const keysMigration: Migration = {
  async up(db: Kysely<UntypedTables>): Promise<void> {
    await db.schema
      .createTable('api_keys')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('hash', 'text', (c) => c.notNull().unique())
      .addColumn('prefix', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addColumn('revoked_at', 'bigint')
      .addColumn('rate_limit', 'text')
      .addColumn('daily_quota', 'bigint')
      .addColumn('monthly_quota', 'bigint')
      .execute();
    await db.schema.createIndex('api_keys_prefix').on('api_keys').column('prefix').execute();
    await db.schema
      .createTable('store_versions')
      .addColumn('name', 'text', (c) => c.primaryKey())
      .addColumn('version', 'bigint', (c) => c.notNull())
      .execute();
    await db.insertInto('store_versions').values({ name: 'keys', version: 0 }).execute();
    await db.schema
      .createTable('usage_counts')
      .addColumn('key_id', 'text', (c) => c.notNull())
      .addColumn('period', 'text', (c) => c.notNull())
      .addColumn('count', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('usage_counts_pk', ['key_id', 'period'])
      .execute();
    await db.schema
      .createTable('legacy_imports')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('file', 'text', (c) => c.notNull())
      .addColumn('imported_at', 'bigint', (c) => c.notNull())
      .execute();
  },
  async down(db: Kysely<UntypedTables>): Promise<void> {
    for (const t of ['legacy_imports', 'usage_counts', 'store_versions', 'api_keys'])
      await db.schema.dropTable(t).execute();
  },
};
