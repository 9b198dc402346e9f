/**
 * Price history (issue 17) and scheduled jobs (tracked products): products upserted by (marketplace, product_id), their sizes, and one row per observed
 * price. Indexes serve the db API's default sorts, the history series (lookup key + time) and the retention prune.
 */
import type { UntypedTables } from '../untyped-tables.js';
import type { CreateTableBuilder, Kysely, Migration } from 'kysely';

export const historyMigration: Migration = { up, down };

async function up(db: Kysely<UntypedTables>): Promise<void> {
  // Text ids (store README: no autoincrement, its syntax differs per engine); prices in double precision.
  const id = <T extends string>(t: CreateTableBuilder<T>) => t.addColumn('id', 'text', (c) => c.primaryKey());
  const ms = 'bigint';
  const real = 'double precision';

  await id(db.schema.createTable('history_products'))
    .addColumn('marketplace', 'text', (c) => c.notNull())
    .addColumn('product_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text')
    .addColumn('url', 'text')
    .addColumn('image', 'text')
    .addColumn('sku', 'text')
    .addColumn('domain', 'text')
    .addColumn('price', real)
    .addColumn('currency', 'text')
    .addColumn('lookup_key', 'text', (c) => c.notNull())
    .addColumn('first_seen_at', ms, (c) => c.notNull())
    .addColumn('last_seen_at', ms, (c) => c.notNull())
    .addColumn('last_crawled_at', ms, (c) => c.notNull())
    .addColumn('error_crawling', 'text')
    .addColumn('is_not_found', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', ms, (c) => c.notNull())
    .addColumn('updated_at', ms, (c) => c.notNull())
    .addUniqueConstraint('history_products_identity', ['marketplace', 'product_id'])
    .execute();
  await db.schema.createIndex('history_products_updated').on('history_products').columns(['updated_at']).execute();
  await db.schema.createIndex('history_products_lookup').on('history_products').columns(['lookup_key']).execute();

  await id(db.schema.createTable('history_variants'))
    .addColumn('marketplace', 'text', (c) => c.notNull())
    .addColumn('product_id', 'text', (c) => c.notNull())
    .addColumn('size', 'text', (c) => c.notNull())
    .addColumn('size_system', 'text')
    .addColumn('gtins', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('created_at', ms, (c) => c.notNull())
    .addColumn('updated_at', ms, (c) => c.notNull())
    .addUniqueConstraint('history_variants_identity', ['marketplace', 'product_id', 'size'])
    .execute();

  await id(db.schema.createTable('history_prices'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('marketplace', 'text', (c) => c.notNull())
    .addColumn('operation', 'text', (c) => c.notNull())
    .addColumn('product_id', 'text', (c) => c.notNull())
    .addColumn('size', 'text')
    .addColumn('condition', 'text')
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('amount', real, (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('country', 'text')
    .addColumn('in_stock', 'integer')
    .addColumn('lookup_key', 'text', (c) => c.notNull())
    .addColumn('observed_at', ms, (c) => c.notNull())
    .execute();
  // Covering index of the series query (every column it reads): a 30-day series is one range scan of the index,
  // never a random read per row in a table of millions.
  await db.schema
    .createIndex('history_prices_series')
    .on('history_prices')
    .columns(['lookup_key', 'observed_at', 'size', 'kind', 'condition', 'currency', 'amount'])
    .execute();
  await db.schema
    .createIndex('history_prices_product')
    .on('history_prices')
    .columns(['marketplace', 'product_id', 'observed_at'])
    .execute();
  await db.schema.createIndex('history_prices_observed').on('history_prices').columns(['observed_at']).execute();

  // Scheduled jobs (src/schedule): tracked products now, other kinds (canaries) later.
  await db.schema
    .createTable('schedule_jobs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('interval_ms', ms, (c) => c.notNull())
    .addColumn('next_run_at', ms, (c) => c.notNull())
    .addColumn('locked_until', ms)
    .addColumn('last_run_at', ms)
    .addColumn('last_error', 'text')
    .addColumn('runs', ms, (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', ms, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('schedule_jobs_due').on('schedule_jobs').columns(['next_run_at']).execute();
}

async function down(db: Kysely<UntypedTables>): Promise<void> {
  for (const t of ['schedule_jobs', 'history_prices', 'history_variants', 'history_products'])
    await db.schema.dropTable(t).ifExists().execute();
}
