/**
 * An operation is data: its parameters, record schema, upstream plan and parser. Routes, OpenAPI, the CLI and tests
 * are generated from the registry of operations (src/operations/registry.ts).
 */
import type { z } from 'zod';
import type { Config } from '../config.js';
import type { Marketplace } from '../marketplaces/catalog.js';
import type { HttpClient, RequestContext } from '../upstream/http-client.js';

export const OPERATION_NAMES = [
  'watchmarket.finder',
  'watchmarket.search',
  'resale-a.search',
  'resale-a.product',
  'resale-b.prices',
  'resale-b.product',
  'sportswear.product',
  'electronics.product',
  // Beyond the spec (CONTRACT §8).
  'resale-a.trends',
  'resale-b.search',
] as const;
export type OperationName = (typeof OPERATION_NAMES)[number];

/** Which TTL applies (CONTRACT: prices 60 s, products 15 min, searches 5 min, finder 24 h by default). */
export type CacheClass = 'prices' | 'products' | 'searches' | 'finder';

export interface FetchContext extends RequestContext {
  http: HttpClient;
  config: Config;
}

/** A saved upstream response given to `marketlens parse`: the file's path and its text. */
export interface SavedFile {
  path: string;
  text: string;
}

/**
 * `N` and `M` are the built-in name and marketplace unions; a marketplace registered at runtime (a test's toy) uses
 * `string` for both (`AnyOperation`).
 */
export interface Operation<
  P = Record<string, unknown>,
  B = unknown,
  R = unknown,
  N extends string = OperationName,
  M extends string = Marketplace,
> {
  /** `<marketplace>.<operation>` */
  name: N;
  /** The id of the marketplace's descriptor. */
  marketplace: M;
  /** Canonical route path (spec §4), under the neutral marketplace word. */
  path: string;
  summary: string;
  /** Markdown for the OpenAPI description: inputs accepted, upstream used, notable behaviour. */
  description: string;
  /** An extension beyond the spec's eight lookups (CONTRACT §8): documented under its own OpenAPI tag. */
  beyondSpec?: boolean;
  /** Query-string parameters (strict: unknown ones are rejected). `max_age` is added by the route layer. */
  params: z.ZodObject;
  /** Parameters also accepted from a JSON body on GET (spec: the finder's `query`, watch search's `page`). */
  bodyParams?: readonly string[];
  /** The record (spec §2), used for OpenAPI and to validate parser output. */
  record: z.ZodType<R>;
  cacheClass: CacheClass;
  /** Example parameters and a response for the OpenAPI document. */
  example?: { params: Record<string, string>; response: unknown };
  /** Fetches every upstream body the parser needs. Never parses beyond what is needed to plan further requests. */
  fetch(ctx: FetchContext, params: P): Promise<B>;
  /**
   * Pure: upstream bodies → the record and the names of record parts left null because their source failed
   * (partial answers; empty when the operation has no parts). Throws MarketlensError (upstream_changed / not_found)
   * when it cannot.
   */
  parse(bodies: B, params: P): Parsed<R>;
  /**
   * The lookup's canonical parameters: how the caller spelled it removed (a GOAT URL and its bare slug give the same
   * object), so they make one cache entry and one in-flight fetch. Still valid parameters of the operation. Pure;
   * throws invalid_parameter (400) for a value `fetch` could not use, before any lock or upstream request. Absent:
   * the validated parameters are already canonical.
   */
  canonicalParams?(params: P): P;
  /**
   * For parameters that name the thing indirectly (a GOAT SKU where prices want the numeric id): the operation's own
   * parameters, found by running other lookups through `ctx` (cached, de-duplicated, limited like any lookup). Runs
   * before the cache key is made, so the answer is cached under the resolved parameters. `null`: nothing to resolve
   * (the common case costs no promise). Throws not_found when nothing matches.
   */
  resolveParams?(params: P, ctx: ResolveContext): Promise<P> | null;
  /** What the record is about (canonical id, the request's country/currency/locale), for the live-result seam. */
  identify(record: R, params: P): RecordIdentity;
  /** `marketlens parse`: turns saved upstream files into the bodies `parse` takes. */
  bodiesFromFiles(files: SavedFile[], params: P): B;
}

/** What `resolveParams` (and helpers such as `findGoatProduct`) may do: run another lookup on the normal path. */
export interface ResolveContext {
  /** The record of `op` for `params` (validated with the operation's schema first, defaults applied). */
  lookup<R>(
    op: Operation<Record<string, unknown>, unknown, R, string, string>,
    params: Record<string, unknown>,
  ): Promise<R>;
}

/** Any operation, built-in or registered at runtime: what the registry, routes and lookup service handle. */
export type AnyOperation = Operation<Record<string, unknown>, unknown, unknown, string, string>;

/** What `parse` yields. */
export interface Parsed<R> {
  record: R;
  /** Record parts (dotted paths) left null because their source failed. */
  missing: string[];
}

/** What a lookup is about, independent of how the caller spelled it (a GOAT URL and its slug are one identity). */
export interface LookupIdentity {
  marketplace: Marketplace;
  operation: OperationName;
  /** Canonical product id (product operations) or a canonical search key (search operations). */
  id: string;
  /** The request's country (ISO 3166-1 alpha-2, upper case) when the operation has one, else null. */
  country: string | null;
  /** ISO 4217 code of every price in the record, when the operation knows it, else null. */
  currency: string | null;
  /** The request's locale (`en-US` form) when the operation has one, else null. */
  locale: string | null;
}

/** The record-dependent part of a lookup's identity (the operation adds marketplace and name). */
export type RecordIdentity = Omit<LookupIdentity, 'marketplace' | 'operation'>;

/** A parse result with nothing missing. */
export function complete<R>(record: R): Parsed<R> {
  return { record, missing: [] };
}

/** Identity helper that keeps an operation's parameter, body and record types tied together. */
export function defineOperation<S extends z.ZodObject, B, R>(
  op: Operation<z.output<S>, B, R> & { params: S },
): Operation<z.output<S>, B, R> {
  return op;
}
