/**
 * Writing and reading the product ↔ marketplace links (link-tables.ts): written on each product answer, read by the
 * product's history. Only marketplaces that found the product are linked; one that errs keeps its earlier link.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.js';
import type { ProductAnswer, ProductMarketplace, SizeSystem } from './types.js';

/** One size row of the last answer, as kept for mapping recorded size labels onto it. */
export interface StoredSizeRow {
  size: string;
  size_system: SizeSystem;
  gtins: string[];
  /** The marketplaces with an offer at this size. */
  marketplaces: ProductMarketplace[];
}

export interface ProductLink {
  marketplace: ProductMarketplace;
  productId: string;
  url: string | null;
}

export interface StoredProduct {
  sku: string;
  name: string | null;
  links: ProductLink[];
  sizes: StoredSizeRow[];
}

export async function saveAnswerLinks(db: Kysely<Database>, answer: ProductAnswer, at: number): Promise<void> {
  const found = answer.marketplaces.filter((m) => m.status === 'found' && m.id !== null);
  if (found.length === 0) return;
  const sizes: StoredSizeRow[] = answer.sizes.map((s) => ({
    size: s.size,
    size_system: s.size_system,
    gtins: s.gtins,
    marketplaces: [...new Set(s.offers.map((o) => o.marketplace))],
  }));
  await db.transaction().execute(async (trx) => {
    for (const m of found) {
      const row = { product_id: m.id!, slug: m.slug, url: m.url, updated_at: at };
      await trx
        .insertInto('product_links')
        .values({ sku: answer.sku, marketplace: m.marketplace, ...row })
        .onConflict((oc) => oc.columns(['sku', 'marketplace']).doUpdateSet(row))
        .execute();
    }
    const product = { name: answer.product.name, sizes: JSON.stringify(sizes), updated_at: at };
    await trx
      .insertInto('product_sizes')
      .values({ sku: answer.sku, ...product })
      .onConflict((oc) => oc.column('sku').doUpdateSet(product))
      .execute();
  });
}

/** The product as last answered, or undefined when no answer ever found it. */
export async function readStoredProduct(db: Kysely<Database>, sku: string): Promise<StoredProduct | undefined> {
  const links = await db
    .selectFrom('product_links')
    .select(['marketplace', 'product_id', 'url'])
    .where('sku', '=', sku)
    .orderBy('marketplace')
    .execute();
  if (links.length === 0) return undefined;
  const sizes = await db
    .selectFrom('product_sizes')
    .select(['name', 'sizes'])
    .where('sku', '=', sku)
    .executeTakeFirst();
  return {
    sku,
    name: sizes?.name ?? null,
    links: links.map((l) => ({
      marketplace: l.marketplace as ProductMarketplace,
      productId: l.product_id,
      url: l.url,
    })),
    sizes: sizes ? (JSON.parse(sizes.sizes) as StoredSizeRow[]) : [],
  };
}
