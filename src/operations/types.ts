/**
 * An operation is data: its parameters, record schema, upstream plan and parser. Routes, OpenAPI, the CLI and tests
 * are generated from the registry of operations (src/operations/registry.ts).
 */
import type { z } from 'zod';
import type { Config } from '../config.js';
import type { Marketplace } from '../marketplaces/catalog.js';
import type { ObservationBatch } from '../history/observation.js';
import type { HttpClient, RequestContext } from '../upstream/http-client.js';
import type { LiveResult } from './live-results.js';
import type { RecordIdentity } from './lookup-identity.js';
import type { OperationName } from './operation-names.js';

export { OPERATION_NAMES, type OperationName } from './operation-names.js';
export type { LookupIdentity, RecordIdentity } from './lookup-identity.js';

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
  /**
   * The lookup `marketlens doctor` and the canaries run: a product or search known to exist, cheap (one product,
   * page 1, the marketplace's default country). Absent: the example's parameters, when those are such a lookup.
   */
  probe?: Record<string, string>;
  /**
   * What the price history records of one live result: products, sizes and prices (src/history/observation.ts).
   * Absent: the operation records nothing (the finder has no prices).
   */
  history?(result: LiveResult): ObservationBatch;
  /** Another form of the answer, which the configuration may choose over the record's own (GOAT's camelCase keys). */
  answerForm?: AnswerForm;
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

/** An answer form an operator may choose: the cache keeps the record; the form is made on the way out. */
export interface AnswerForm {
  /** Whether the configuration asks for this form (e.g. MARKETLENS_RESALE_B_PRODUCT_KEYS=camel). */
  chosenBy(config: Config): boolean;
  /** The record's JSON, as cached → the body sent. */
  fromRecordJson(json: string): string;
  /** The answer in this form: documented in OpenAPI beside the record, and the MCP tool's output when chosen. */
  schema: z.ZodType;
  /** Which form is served when (the description of the documented answer). */
  description: string;
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
