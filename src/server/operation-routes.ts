/**
 * One route per operation under its neutral path (canonical) and its alias path (same handler), generated from the
 * operation registry. Both are documented: the alias as its own operation under the "Retailed aliases" tag.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import { z } from 'zod';
import type { Config } from '../config.js';
import { invalidParam } from '../errors.js';
import type { LookupResult, LookupService } from '../operations/lookup.js';
import { BUILT_IN_REGISTRY, type Registry } from '../operations/registry.js';
import type { AnyOperation } from '../operations/types.js';
import { ALIAS_TAG, BEYOND_SPEC_TAG, problemResponses } from './openapi.js';
import { zodToInvalidParameter } from './problem.js';
import { guardedValidatorCompiler } from './request-input-guard.js';

const maxAge = z.coerce
  .number()
  .int()
  .min(0)
  .optional()
  .describe(
    'Oldest cached answer accepted, in seconds (it may exceed the TTL); 0 forces a live fetch (same as ' +
      '`Cache-Control: no-cache`). Without it: answers younger than the TTL (prices 60 s, products 15 min, searches ' +
      '5 min, finder 24 h by default) are hits; up to one more TTL (at most 5 min) past it the cached answer is sent ' +
      'with `X-Cache: stale` while a refresh runs. When a live fetch fails, a cached answer up to ' +
      'MARKETLENS_STALE_IF_ERROR old (default 24 h) is sent with `X-Cache: stale` instead of the error (never for 400/404).',
  );

export interface OperationRouteDeps {
  /** The marketplaces and operations served (the built-in ones by default). */
  registry?: Registry;
  lookup: LookupService;
  deadlineMs: number;
  /** onRequest hook that authenticates the caller (CONTRACT §2) and applies its limits. */
  guard: onRequestHookHandler;
  /** Counts how each lookup was answered (X-Cache), for /metrics. */
  onCacheResult?: (operation: string, result: LookupResult['cache']) => void;
  /** The configuration, which may choose an operation's other answer form (`answerForm`: GOAT's camelCase keys). */
  config?: Config;
}

/** The answer form the configuration chose for an operation (the cache keeps the record), or undefined. */
function presenter(op: AnyOperation, deps: OperationRouteDeps): ((json: string) => string) | undefined {
  return deps.config && op.answerForm?.chosenBy(deps.config) ? op.answerForm.fromRecordJson : undefined;
}

/** The documented 200 body: the record, and an operation's other answer form as an alternate shape. */
function okSchema(op: AnyOperation): z.ZodType {
  const record = op.example ? op.record.meta({ examples: [op.example.response] }) : op.record;
  if (!op.answerForm) return record;
  return z.union([record, op.answerForm.schema]).describe(op.answerForm.description);
}

/**
 * A parameter with its accepted values listed as a JSON Schema enum in OpenAPI, when its output is an enum behind a
 * normalising pipe (`us` → `US`): generated clients then type it as the union of values, not as a string.
 */
function withDocumentedEnum(schema: z.ZodType): z.ZodType {
  let inner: z.ZodType = schema;
  while (inner instanceof z.ZodDefault || inner instanceof z.ZodOptional) inner = inner.unwrap() as z.ZodType;
  if (!(inner instanceof z.ZodPipe) || !(inner.out instanceof z.ZodEnum)) return schema;
  return schema.meta({ enum: inner.out.options });
}

/** Every path registered for operations, so the not-found handler can answer 405 for other methods. */
export function operationPaths(registry: Registry = BUILT_IN_REGISTRY): string[] {
  return registry.operations.flatMap((op) => [op.path, registry.aliasPath(op)]);
}

/**
 * What the cached-hit path (hit-path.ts) needs of one operation route: the same validation, input and answer as the
 * route's Fastify handler, from the same functions.
 */
export interface HitRoute {
  /** The route's URL (its metrics label). */
  url: string;
  /** The parsed query string through the route's own validator: the validated query, or undefined when invalid. */
  validate(query: Record<string, unknown>): Record<string, unknown> | undefined;
  /** The fresh in-process answer to a validated query, or undefined; throws what the handler would throw. */
  freshHit(query: Record<string, unknown>, cacheControl: string | undefined): LookupResult | undefined;
  /** The body to send (no side effect). */
  present(result: LookupResult): Buffer | string;
  /** Counts how the answer was made (X-Cache metrics, status). */
  count(result: LookupResult): void;
}

/** Registers every operation's routes; returns them by URL for the cached-hit path. */
export function registerOperationRoutes(app: FastifyInstance, deps: OperationRouteDeps): Map<string, HitRoute> {
  const registry = deps.registry ?? BUILT_IN_REGISTRY;
  const aliasPath = (op: AnyOperation) => registry.aliasPath(op);
  const hitRoutes = new Map<string, HitRoute>();
  for (const op of registry.operations) {
    const bodyKeys = op.bodyParams ?? [];
    // Parameters a JSON body may carry are optional on both sides, and without their defaults there (zod's partial()
    // keeps a default, which then counts as given and clashes with the other side); the handler checks the merged
    // set, where the defaults apply.
    const loose = Object.fromEntries(bodyKeys.map((k) => [k, looseParam(op.params.shape[k])]));
    const documented = Object.fromEntries(
      Object.entries(op.params.shape as Record<string, z.ZodType>).map(([k, v]) => [k, withDocumentedEnum(v)]),
    );
    const querystring = op.params.extend(documented).extend(loose).extend({ max_age: maxAge });
    const body = bodyKeys.length > 0 ? z.object(loose).strict().nullish() : undefined;
    const lookup = operationLookup(op, deps);
    const handler = makeHandler(lookup, deps);
    // The validator Fastify compiles for the route, compiled the same way for the cached-hit path.
    const validator = guardedValidatorCompiler({
      schema: querystring,
      method: 'GET',
      url: op.path,
      httpPart: 'querystring',
    });
    const validate = (query: Record<string, unknown>) => {
      const r = validator(query) as { value?: Record<string, unknown>; error?: unknown };
      return r.error ? undefined : r.value;
    };
    const operationId = operationIdOf(op);
    const { alias } = registry.marketplace(op.marketplace);
    for (const [url, isAlias] of [
      [op.path, false],
      [aliasPath(op), true],
    ] as const) {
      hitRoutes.set(url, {
        url,
        validate,
        freshHit: (query, cacheControl) => {
          const input = lookup.input(query, undefined, cacheControl);
          return deps.lookup.freshHit(op, input.params, input.maxAgeSeconds);
        },
        present: lookup.present,
        count: lookup.count,
      });
      app.route({
        method: 'GET',
        url,
        // Fastify cannot attach a body schema to the automatic HEAD route.
        exposeHeadRoute: body === undefined,
        onRequest: deps.guard,
        preValidation: joinRepeatedParams,
        schema: {
          // The alias is its own operation (same schemas), so that a client generated from /openapi.json can call the
          // Retailed path: `resaleAProduct` at the neutral path, `stockxProduct` at /stockx/.
          operationId: isAlias ? aliasOperationId(op, alias) : operationId,
          tags: isAlias ? [ALIAS_TAG] : op.beyondSpec ? [BEYOND_SPEC_TAG] : [registry.marketplace(op.marketplace).site],
          summary: isAlias ? `${op.summary}, at the Retailed path` : op.summary,
          description:
            (isAlias
              ? `The same operation as \`${op.path}\` (\`${operationId}\`), at the path Retailed clients call.\n\n`
              : '') +
            `${op.description}\n\nAlias path: \`${aliasPath(op)}\`.` +
            (bodyKeys.length > 0
              ? ` ${bodyKeys.map((k) => `\`${k}\``).join(', ')} may also come from a JSON body (GET with \`Content-Type: application/json\`).`
              : ''),
          security: [{ apiKey: [] }],
          querystring,
          ...(body ? { body } : {}),
          response: {
            200: okSchema(op),
            ...problemResponses(),
          },
        },
        handler,
      });
    }
  }
  return hitRoutes;
}

/**
 * The OpenAPI operationId of an operation's neutral route (the MCP tools find the route by it).
 * @example operationIdOf(resaleAProduct) // 'resaleAProduct'
 */
export function operationIdOf(op: AnyOperation): string {
  return op.name.replace(/[.-](\w)/g, (_, c: string) => c.toUpperCase());
}

/**
 * The operation id of an alias path: the real site's name and the operation (`stockxProduct`, `chrono24Finder`).
 * @example aliasOperationId(resaleAProduct, 'stockx') // 'stockxProduct'
 */
function aliasOperationId(op: AnyOperation, alias: string): string {
  const operation = op.name.slice(op.name.indexOf('.') + 1);
  return `${alias.replace(/-(\w)/g, (_, c: string) => c.toUpperCase())}${operation[0]!.toUpperCase()}${operation.slice(1)}`;
}

/** A body-capable parameter as either side takes it: optional, without its default, with its description. */
function looseParam(schema: z.ZodType): z.ZodType {
  const inner = schema instanceof z.ZodDefault ? (schema.removeDefault() as z.ZodType) : schema;
  const loose = inner.optional();
  return schema.description ? loose.describe(schema.description) : loose;
}

/**
 * `?dial_color=702&dial_color=710` is read as the comma list `702,710`, the spec's form for several values; for a
 * single-valued parameter the joined value then fails its own validation with a message naming it.
 */
function joinRepeatedParams(req: FastifyRequest, _reply: FastifyReply, done: () => void): void {
  const query = req.query as Record<string, unknown>;
  for (const k in query) if (Array.isArray(query[k])) query[k] = (query[k] as unknown[]).join(',');
  done();
}

export const JSON_TYPE = 'application/json; charset=utf-8';

/** One operation's lookup input and answer, shared by its route handler and the cached-hit path. */
function operationLookup(op: AnyOperation, deps: OperationRouteDeps) {
  const present = presenter(op, deps);
  return {
    op,
    /** The validated query (and body) as the lookup's parameters, and the freshness the caller asks for. */
    input(
      validated: Record<string, unknown>,
      body: Record<string, unknown> | null | undefined,
      cacheControl: string | undefined,
    ): { params: Record<string, unknown>; maxAgeSeconds: number | undefined } {
      const { max_age: requested, ...given } = validated;
      const params = op.bodyParams ? mergeBodyParams(op, given, body) : given;
      const maxAgeSeconds =
        cacheControl !== undefined && /\bno-cache\b/i.test(cacheControl) ? 0 : (requested as number | undefined);
      return { params, maxAgeSeconds };
    },
    present(result: LookupResult): Buffer | string {
      return present ? present(result.body.toString()) : result.body;
    },
    count(result: LookupResult): void {
      deps.onCacheResult?.(op.name, result.cache);
    },
  };
}

/**
 * The route handler. A fresh answer in the in-process cache is sent synchronously (no promise, no timer); anything
 * else goes through the lookup's async path. (Most cached hits never get here: hit-path.ts answers them first.)
 */
function makeHandler(lookup: ReturnType<typeof operationLookup>, deps: OperationRouteDeps) {
  const { op } = lookup;
  const send = (reply: FastifyReply, result: LookupResult) => {
    lookup.count(result);
    const body = lookup.present(result);
    setLookupHeaders(reply, result);
    reply.type(JSON_TYPE).send(body);
  };
  return function handler(req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> | undefined {
    const { params, maxAgeSeconds } = lookup.input(
      req.query as Record<string, unknown>,
      req.body as Record<string, unknown> | null | undefined,
      req.headers['cache-control'],
    );
    const hit = deps.lookup.freshHit(op, params, maxAgeSeconds);
    if (hit) {
      send(reply, hit);
      return undefined;
    }
    return deps.lookup
      .run(op, params, {
        // A time, not a signal: a cache hit then needs no timer.
        deadlineAt: Date.now() + deps.deadlineMs,
        maxAgeSeconds,
      })
      .then((result) => {
        send(reply, result);
        return reply;
      });
  };
}

/** Body parameters join the (already validated) query; the merged set must satisfy the operation's schema. */
function mergeBodyParams(
  op: AnyOperation,
  query: Record<string, unknown>,
  body: Record<string, unknown> | null | undefined,
) {
  const merged = { ...query };
  for (const [k, v] of Object.entries(body ?? {})) {
    if (v === undefined) continue;
    if (merged[k] !== undefined) {
      throw invalidParam(k, 'given both in the query string and in the body; send it once');
    }
    merged[k] = v;
  }
  const checked = op.params.safeParse(merged);
  if (!checked.success) throw zodToInvalidParameter(checked.error);
  return checked.data;
}

/** CONTRACT §4: X-Cache, Age, Last-Modified, Server-Timing; plus X-Missing-Parts for partial records. */
export function setLookupHeaders(reply: FastifyReply, r: LookupResult): void {
  forEachLookupHeader(r, (name, value) => reply.header(name, value));
}

/** The lookup headers of an answer, in order (the cached-hit path writes them with the same function). */
export function forEachLookupHeader(r: LookupResult, set: (name: string, value: string) => void): void {
  set('x-cache', r.cache);
  set('age', String(Math.max(0, Math.floor((Date.now() - r.fetchedAt) / 1000))));
  set('last-modified', r.lastModified ?? new Date(r.fetchedAt).toUTCString());
  // Hits and stale answers did no upstream work: no Server-Timing for them (and no work on the hot path).
  if (r.upstreamMs !== undefined || r.waitMs !== undefined) {
    const timing: string[] = [];
    if (r.upstreamMs !== undefined) timing.push(`upstream;dur=${r.upstreamMs.toFixed(1)}`);
    if (r.parseMs !== undefined) timing.push(`parse;dur=${r.parseMs.toFixed(1)}`);
    if (r.waitMs !== undefined)
      timing.push(`shared;desc="joined an identical in-flight fetch";dur=${r.waitMs.toFixed(1)}`);
    set('server-timing', timing.join(', '));
  }
  if (r.missingParts.length > 0) set('x-missing-parts', r.missingParts.join(','));
}
