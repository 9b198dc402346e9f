/**
 * Product ↔ marketplace links (src/products/link-tables.ts): per SKU, each marketplace's product id, and the size rows
 * of its last product answer, written on every product answer and read by the product's history.
 */
import type { Kysely, Migration } from 'kysely';

export const productLinksMigration: Migration = { up, down };

async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('product_links')
    .addColumn('sku', 'text', (c) => c.notNull())
    .addColumn('marketplace', 'text', (c) => c.notNull())
    .addColumn('product_id', 'text', (c) => c.notNull())
    .addColumn('slug', 'text')
    .addColumn('url', 'text')
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('product_links_pk', ['sku', 'marketplace'])
    .execute();
  await db.schema
    .createTable('product_sizes')
    .addColumn('sku', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text')
    .addColumn('sizes', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
}

async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('product_sizes').ifExists().execute();
  await db.schema.dropTable('product_links').ifExists().execute();
}
