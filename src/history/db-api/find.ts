/**
 * One page of a collection, in Retailed's envelope: `{docs, totalDocs, limit, totalPages, page, hasPrevPage,
 * hasNextPage, prevPage, nextPage}`. Parameters: where, sort (`-field` descending, comma-separated), page, limit.
 */
import type { Database } from '../../store/schema.js';
import type { UntypedTables } from '../../store/untyped-tables.js';
import type { Kysely } from 'kysely';
import { invalidParam } from '../../errors.js';
import type { Collection } from './collections.js';
import type { Nested } from './nested-query.js';
import { compileWhere } from './where.js';

export interface Envelope<T> {
  docs: T[];
  totalDocs: number;
  limit: number;
  totalPages: number;
  page: number;
  pagingCounter: number;
  hasPrevPage: boolean;
  hasNextPage: boolean;
  prevPage: number | null;
  nextPage: number | null;
}

export const DEFAULT_LIMIT = 10;
export const MAX_LIMIT = 100;
/** Parameters every db route takes besides `where`; `format` picks CSV. */
export const FIND_PARAMS = ['where', 'sort', 'page', 'limit', 'format'] as const;

export interface FindOptions {
  where: Nested | undefined;
  sort: string | undefined;
  page: number;
  limit: number;
}

/** Checks the non-where parameters of a nested query and gives typed options; anything unknown is a 400. */
export function findOptions(
  q: Record<string, Nested>,
  collection: Collection,
  extra: readonly string[] = [],
): FindOptions {
  for (const k of Object.keys(q)) {
    if (!(FIND_PARAMS as readonly string[]).includes(k) && !extra.includes(k))
      throw invalidParam(k, 'unknown parameter');
  }
  const int = (name: 'page' | 'limit', def: number, min: number, max: number): number => {
    const v = q[name];
    if (v === undefined) return def;
    if (typeof v !== 'string' || !/^\d+$/.test(v)) throw invalidParam(name, 'must be a whole number');
    const n = Number(v);
    if (n < min || n > max) throw invalidParam(name, `must be between ${min} and ${max}`);
    return n;
  };
  const sort = q.sort;
  if (sort !== undefined && typeof sort !== 'string') throw invalidParam('sort', 'must be given once, e.g. -createdAt');
  for (const s of (sort ?? collection.defaultSort).split(',')) {
    const name = s.replace(/^-/, '');
    // Own fields only: `in` also finds what every object inherits (`toString`, `__proto__`, …).
    if (!Object.hasOwn(collection.fields, name))
      throw invalidParam('sort', `unknown field "${name}"; fields: ${Object.keys(collection.fields).join(', ')}`);
  }
  return { where: q.where, sort, page: int('page', 1, 1, 1_000_000), limit: int('limit', DEFAULT_LIMIT, 1, MAX_LIMIT) };
}

export async function findPage(
  db: Kysely<Database>,
  collection: Collection,
  o: FindOptions,
): Promise<Envelope<Record<string, unknown>>> {
  // The collection names its columns at run time (from a whitelist), which the typed schema cannot follow.
  const untyped = db as unknown as Kysely<UntypedTables>;
  let base = untyped.selectFrom(collection.table);
  if (o.where !== undefined) {
    const where = o.where;
    // Compile once up front so a bad filter is a 400 before any SQL runs.
    base = base.where((eb) => compileWhere(eb, collection, where));
  }
  const countRow = await base.select((eb) => eb.fn.countAll<number | string | bigint>().as('n')).executeTakeFirst();
  const totalDocs = Number(countRow?.n ?? 0);
  let q = base.selectAll();
  for (const s of (o.sort ?? collection.defaultSort).split(',')) {
    const desc = s.startsWith('-');
    const field = collection.fields[s.replace(/^-/, '')] as { column: string };
    q = q.orderBy(field.column, desc ? 'desc' : 'asc');
  }
  // A stable tie-break, so pages never overlap or skip rows with equal sort keys.
  q = q.orderBy('id', 'asc');
  const rows = await q
    .limit(o.limit)
    .offset((o.page - 1) * o.limit)
    .execute();
  const totalPages = Math.max(1, Math.ceil(totalDocs / o.limit));
  return {
    docs: rows,
    totalDocs,
    limit: o.limit,
    totalPages,
    page: o.page,
    pagingCounter: (o.page - 1) * o.limit + 1,
    hasPrevPage: o.page > 1,
    hasNextPage: o.page < totalPages,
    prevPage: o.page > 1 ? o.page - 1 : null,
    nextPage: o.page < totalPages ? o.page + 1 : null,
  };
}
