/**
 * Records observations off the request path. The seam's listeners run on the lookup path, so `record` only queues
 * the live result; a timer (or a full queue) writes queued results in one transaction. Nothing reaches the lookup:
 * - the database unavailable (down, restarting, busy past its timeout, full): the batch is kept and tried again with
 *   a backoff (up to RETRY_MAX_MS apart), in bounded memory — beyond `maxQueue` results, new ones are dropped,
 *   counted and logged;
 * - a row the database refuses: the batch is written again one result per transaction, so only the refused result
 *   is skipped (logged, counted as failed). Upstream text is made storable first (NUL, lone surrogates).
 * Subscribers (`onObserved`, the alerts) hear about a batch only after it is durably written.
 */
import type { Logger } from '../platform/logger.js';
import { randomBytes } from 'node:crypto';
import type { Insertable, Kysely } from 'kysely';
import { cacheKey } from '../cache/cache-key.js';
import type { LiveFailure, LiveResult, LiveResults } from '../operations/live-results.js';
import { BUILT_IN_REGISTRY, type Registry } from '../operations/registry.js';
import { extractObservations } from './extract/index.js';
import type { ObservationBatch, ObservedPrice } from './observation.js';
import type { StoreHealth } from '../store/health.js';
import type { Database } from '../store/schema.js';
import { storableRow, storableText } from '../store/storable-text.js';
import { isStoreUnavailable } from '../store/unavailable.js';

export interface RecorderOptions {
  /** How long results wait to be written together (ms). */
  flushMs?: number;
  /**
   * Results held (queued, or kept while the database is unavailable) beyond this are dropped (counted, logged)
   * rather than letting memory grow while the database is down.
   */
  maxQueue?: number;
  retentionDays: number;
  log?: Logger;
  now?: () => number;
  /** Counts live results by outcome (the /metrics counter). */
  count?: (result: 'written' | 'failed' | 'dropped', n: number) => void;
  /** Told when writes wait for the database and when they went through (/readyz). */
  health?: StoreHealth;
  /** The app's marketplaces and operations: each operation's extractor, each marketplace's name (built-in by default). */
  registry?: Registry;
}

export interface RecorderStats {
  /** Live results written. */
  written: number;
  /** Live results whose write the database refused (or whose observations could not be extracted). */
  failed: number;
  /** Live results dropped because the queue was full (or still unwritten at close). */
  dropped: number;
  /** Price rows written. */
  prices: number;
}

type Queued =
  { kind: 'result'; result: LiveResult; key: string } | { kind: 'failure'; failure: LiveFailure; key: string };

/** A queued item with its observations extracted (undefined for a failure, or a result with nothing to record). */
interface Prepared {
  item: Queued;
  batch?: ObservationBatch;
}

/** The longest wait between two attempts while the database is unavailable: how late history catches up after. */
const RETRY_MAX_MS = 2_000;
const DROP_LOG_EVERY_MS = 30_000;

const DAY_MS = 86_400_000;
/** Which product-level price stands for the product (Retailed's product doc `price`), best first. */
const HEADLINE: ObservedPrice['kind'][] = ['lowest_ask', 'lowest_price', 'current_price', 'listing_price', 'last_sale'];
/** Rows per INSERT: 400 × 14 columns stays well under SQLite's bound-variable limit (32 766). */
const CHUNK = 400;

export class HistoryRecorder {
  readonly stats: RecorderStats = { written: 0, failed: 0, dropped: 0, prices: 0 };
  /** False: live results are ignored (the bench measures the lookup path with history off this way). */
  enabled = true;
  private queue: Queued[] = [];
  /** Items kept because the database was unavailable: written first at the next attempt. */
  private held: Queued[] = [];
  /** 0, or the pause before the next attempt while the database is unavailable (doubles up to RETRY_MAX_MS). */
  private retryDelay = 0;
  private lastDropLog = 0;
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();
  private readonly listeners: Array<(b: ObservationBatch) => void> = [];
  private readonly flushMs: number;
  private readonly maxQueue: number;
  private readonly now: () => number;
  private readonly registry: Registry;
  private closed = false;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly opts: RecorderOptions,
  ) {
    this.flushMs = opts.flushMs ?? 250;
    this.maxQueue = opts.maxQueue ?? 5000;
    this.now = opts.now ?? Date.now;
    this.registry = opts.registry ?? BUILT_IN_REGISTRY;
  }

  /** Subscribes to the seam; returns the unsubscribe. */
  attach(live: LiveResults): () => void {
    const offs = [live.onResult((r) => this.record(r)), live.onFailure((f) => this.recordFailure(f))];
    return () => offs.forEach((off) => off());
  }

  /** Called after each batch is written (the alerts subscribe here). A throwing listener is logged, never retried. */
  onObserved(listener: (batch: ObservationBatch) => void): () => void {
    this.listeners.push(listener);
    return () => {
      const i = this.listeners.indexOf(listener);
      if (i >= 0) this.listeners.splice(i, 1);
    };
  }

  /** Synchronous and cheap: queue only (extraction and SQL happen at flush). */
  record(result: LiveResult): void {
    this.enqueue({ kind: 'result', result, key: cacheKey(result.operation, result.params) });
  }

  recordFailure(failure: LiveFailure): void {
    this.enqueue({ kind: 'failure', failure, key: cacheKey(failure.operation, failure.params) });
  }

  private enqueue(q: Queued): void {
    if (this.closed || !this.enabled) return;
    if (this.queue.length + this.held.length >= this.maxQueue) {
      this.stats.dropped++;
      this.opts.count?.('dropped', 1);
      const now = Date.now();
      if (now - this.lastDropLog > DROP_LOG_EVERY_MS) {
        this.lastDropLog = now;
        this.opts.log?.error(
          { held: this.held.length + this.queue.length, dropped: this.stats.dropped },
          'history queue full (database unavailable or too slow); live results dropped',
        );
      }
      return;
    }
    this.queue.push(q);
    // While the database is unavailable, only the retry timer writes (a full queue waits for it).
    if (this.queue.length >= 200 && this.retryDelay === 0) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), this.retryDelay || this.flushMs).unref();
  }

  /**
   * Writes everything queued (and kept) so far; resolves when it is written, refused and counted, or kept again
   * because the database is unavailable.
   */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.queue.length === 0 && this.held.length === 0) return this.flushing;
    this.flushing = this.flushing.then(() => {
      // Taken when this write starts: a write before it may have put results back into `held`.
      const items = this.held.concat(this.queue);
      this.held = [];
      this.queue = [];
      return items.length > 0 ? this.write(items) : undefined;
    });
    return this.flushing;
  }

  /** Writes what is held; what the database still cannot take is dropped, counted and logged. */
  async close(): Promise<void> {
    await this.flush();
    this.closed = true;
    clearTimeout(this.timer);
    const lost = this.held.length + this.queue.length;
    if (lost === 0) return;
    const results = this.held.concat(this.queue).filter((i) => i.kind === 'result').length;
    this.held = [];
    this.queue = [];
    this.stats.dropped += results;
    this.opts.count?.('dropped', results);
    this.opts.log?.error({ results }, 'history not written at shutdown: the database is unavailable');
  }

  private async write(items: Queued[]): Promise<void> {
    const prepared: Prepared[] = [];
    for (const item of items) {
      try {
        prepared.push({
          item,
          batch: item.kind === 'result' ? (extractObservations(item.result, this.registry) ?? undefined) : undefined,
        });
      } catch (e) {
        this.refused(item, e);
      }
    }
    try {
      await this.writePrepared(prepared);
      this.written(prepared);
      return;
    } catch (e) {
      if (isStoreUnavailable(e)) return this.hold(prepared, e);
    }
    // Something in the batch was refused: one transaction per item, so only what is refused is skipped.
    for (const [i, p] of prepared.entries()) {
      try {
        await this.writePrepared([p]);
        this.written([p]);
      } catch (e) {
        if (isStoreUnavailable(e)) return this.hold(prepared.slice(i), e);
        this.refused(p.item, e);
      }
    }
  }

  private async writePrepared(prepared: Prepared[]): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      const keyed: Array<{ batch: ObservationBatch; key: string }> = [];
      const lastSuccess = new Map<string, number>();
      for (const { item, batch } of prepared) {
        if (item.kind !== 'result' || !batch) continue;
        keyed.push({ batch, key: item.key });
        lastSuccess.set(item.key, Math.max(lastSuccess.get(item.key) ?? 0, item.result.fetchedAt));
      }
      // A few multi-row statements per flush rather than several per lookup: the write cost is per flush.
      await writeBatches(trx, keyed, this.now(), this.registry);
      for (const { item } of prepared) {
        // A failure older than a success of the same lookup in this flush is already superseded.
        if (item.kind === 'failure' && item.failure.at >= (lastSuccess.get(item.key) ?? 0))
          await markFailure(trx, item.key, item.failure, this.now());
      }
    });
  }

  /** The database cannot take writes now: keep the items (first in line) and try again after a growing pause. */
  private hold(prepared: Prepared[], e: unknown): void {
    this.held = prepared.map((p) => p.item).concat(this.held);
    const first = this.retryDelay === 0;
    this.retryDelay = Math.min(RETRY_MAX_MS, Math.max(this.flushMs, this.retryDelay * 2));
    this.opts.health?.unavailable('history', e);
    if (first)
      this.opts.log?.warn(
        { err: (e as Error).message, held: this.held.length },
        'history waits for the database (unavailable); results kept and retried',
      );
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.flush(), this.retryDelay).unref();
  }

  private written(prepared: Prepared[]): void {
    const results = prepared.filter((p) => p.item.kind === 'result').length;
    if (this.retryDelay !== 0) {
      this.retryDelay = 0;
      this.opts.log?.warn({ results }, 'history writes resumed');
    }
    this.opts.health?.wrote('history');
    if (results > 0) {
      this.stats.written += results;
      this.opts.count?.('written', results);
    }
    for (const { batch: b } of prepared) {
      if (!b) continue;
      this.stats.prices += b.prices.length;
      for (const l of this.listeners) {
        try {
          l(b);
        } catch (e) {
          this.opts.log?.warn({ err: (e as Error).message }, 'history onObserved listener threw');
        }
      }
    }
  }

  /** The database refused this item (or it could not be read): skipped, logged and counted; the rest goes on. */
  private refused(item: Queued, e: unknown): void {
    this.opts.log?.error(
      {
        err: (e as Error).message,
        operation: item.kind === 'result' ? item.result.operation : item.failure.operation,
        lookup: item.key.slice(0, 300),
      },
      'history row refused by the database; skipped',
    );
    if (item.kind !== 'result') return;
    this.stats.failed++;
    this.opts.count?.('failed', 1);
  }

  /** Deletes prices older than the retention, and products (with their sizes) not seen since then. */
  async prune(): Promise<number> {
    const cutoff = this.now() - this.opts.retentionDays * DAY_MS;
    const res = await this.db.deleteFrom('history_prices').where('observed_at', '<', cutoff).executeTakeFirst();
    const gone = this.db.selectFrom('history_products').select('product_id').where('last_seen_at', '<', cutoff);
    await this.db.deleteFrom('history_variants').where('product_id', 'in', gone).execute();
    await this.db.deleteFrom('history_products').where('last_seen_at', '<', cutoff).execute();
    return Number(res.numDeletedRows);
  }

  /** Runs the prune now and then once a day (unref'd: it never holds the process open). Returns the stop. */
  startDailyPrune(): () => void {
    const run = () =>
      void this.prune().catch((e) => this.opts.log?.error({ err: (e as Error).message }, 'history prune failed'));
    run();
    const t = setInterval(run, DAY_MS).unref();
    return () => clearInterval(t);
  }
}

async function writeBatches(
  db: Kysely<Database>,
  list: Array<{ batch: ObservationBatch; key: string }>,
  now: number,
  registry: Registry,
): Promise<void> {
  if (list.length === 0) return;
  // One row per product and per variant (the latest observation wins; PostgreSQL refuses an upsert that touches a
  // row twice), every price row as it is.
  const products = new Map<string, Insertable<Database['history_products']>>();
  const variants = new Map<string, Insertable<Database['history_variants']>>();
  const prices: Array<Insertable<Database['history_prices']>> = [];
  for (const { batch: b, key } of list) {
    const seen = b.observedAt.getTime();
    const headline = new Map<string, ObservedPrice>();
    for (const p of b.prices) {
      if (p.size !== null) continue;
      const cur = headline.get(p.productId);
      if (HEADLINE.includes(p.kind) && (!cur || HEADLINE.indexOf(p.kind) < HEADLINE.indexOf(cur.kind)))
        headline.set(p.productId, p);
    }
    for (const p of b.products) {
      const id = `${p.marketplace}:${p.productId}`;
      const prev = products.get(id);
      const h = headline.get(p.productId);
      products.set(
        id,
        storableRow({
          id,
          marketplace: p.marketplace,
          product_id: p.productId,
          name: p.name ?? prev?.name ?? null,
          url: p.url ?? prev?.url ?? null,
          image: p.image ?? prev?.image ?? null,
          sku: p.sku ?? prev?.sku ?? null,
          domain: p.domain ?? prev?.domain ?? null,
          price: h?.amount ?? prev?.price ?? null,
          currency: h?.currency ?? prev?.currency ?? null,
          lookup_key: key,
          first_seen_at: Math.min(seen, prev?.first_seen_at ?? seen),
          last_seen_at: seen,
          last_crawled_at: seen,
          error_crawling: null,
          is_not_found: 0,
          created_at: now,
          updated_at: now,
        }),
      );
    }
    for (const v of b.variants) {
      const id = `${v.marketplace}:${v.productId}:${v.size}`;
      variants.set(
        id,
        storableRow({
          id,
          marketplace: v.marketplace,
          product_id: v.productId,
          size: v.size,
          size_system: v.sizeSystem,
          gtins: JSON.stringify(v.gtins),
          created_at: now,
          updated_at: now,
        }),
      );
    }
    const site = registry.marketplace(b.marketplace).alias;
    for (const p of b.prices) {
      prices.push(
        storableRow({
          id: priceId(p.observedAt.getTime()),
          name: p.country ? `${site}-${p.country.toLowerCase()}` : site,
          marketplace: p.marketplace,
          operation: p.operation,
          product_id: p.productId,
          size: p.size,
          condition: p.condition,
          kind: p.kind,
          amount: p.amount,
          currency: p.currency,
          country: p.country,
          in_stock: p.inStock === null ? null : p.inStock ? 1 : 0,
          lookup_key: key,
          observed_at: p.observedAt.getTime(),
        }),
      );
    }
  }
  const productRows = [...products.values()];
  for (let i = 0; i < productRows.length; i += CHUNK / 2) {
    // Upsert by identity: first_seen_at and created_at stay as first written; a lookup that lacks a field (GOAT's
    // prices route has no name) keeps the value an earlier one recorded.
    await db
      .insertInto('history_products')
      .values(productRows.slice(i, i + CHUNK / 2))
      .onConflict((oc) =>
        oc.columns(['marketplace', 'product_id']).doUpdateSet((eb) => ({
          name: eb.fn.coalesce(eb.ref('excluded.name'), eb.ref('history_products.name')),
          url: eb.fn.coalesce(eb.ref('excluded.url'), eb.ref('history_products.url')),
          image: eb.fn.coalesce(eb.ref('excluded.image'), eb.ref('history_products.image')),
          sku: eb.fn.coalesce(eb.ref('excluded.sku'), eb.ref('history_products.sku')),
          domain: eb.fn.coalesce(eb.ref('excluded.domain'), eb.ref('history_products.domain')),
          price: eb.fn.coalesce(eb.ref('excluded.price'), eb.ref('history_products.price')),
          currency: eb.fn.coalesce(eb.ref('excluded.currency'), eb.ref('history_products.currency')),
          lookup_key: eb.ref('excluded.lookup_key'),
          last_seen_at: eb.ref('excluded.last_seen_at'),
          last_crawled_at: eb.ref('excluded.last_crawled_at'),
          error_crawling: null,
          is_not_found: 0,
          updated_at: eb.ref('excluded.updated_at'),
        })),
      )
      .execute();
  }
  const variantRows = [...variants.values()];
  for (let i = 0; i < variantRows.length; i += CHUNK) {
    await db
      .insertInto('history_variants')
      .values(variantRows.slice(i, i + CHUNK))
      .onConflict((oc) =>
        oc.columns(['marketplace', 'product_id', 'size']).doUpdateSet((eb) => ({
          size_system: eb.fn.coalesce(eb.ref('excluded.size_system'), eb.ref('history_variants.size_system')),
          gtins: eb.ref('excluded.gtins'),
          updated_at: eb.ref('excluded.updated_at'),
        })),
      )
      .execute();
  }
  for (let i = 0; i < prices.length; i += CHUNK)
    await db
      .insertInto('history_prices')
      .values(prices.slice(i, i + CHUNK))
      .execute();
}

/** A failed lookup marks the products its last success recorded: the crawl error, and not-found for a 404. */
async function markFailure(db: Kysely<Database>, key: string, f: LiveFailure, now: number): Promise<void> {
  await db
    .updateTable('history_products')
    .set({
      error_crawling: storableText(`${f.error.code}: ${f.error.message}`.slice(0, 500)),
      is_not_found: f.error.code === 'not_found' ? 1 : 0,
      last_crawled_at: f.at,
      updated_at: now,
    })
    .where('lookup_key', '=', storableText(key))
    .execute();
}

/** Short, roughly time-ordered ids (12 bytes of text per row matters at a million rows). */
function priceId(ms: number): string {
  return ms.toString(36).padStart(9, '0') + randomBytes(6).toString('base64url');
}
