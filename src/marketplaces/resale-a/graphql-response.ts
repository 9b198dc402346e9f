/**
 * Pure reading of a `/api/p/e` answer: JSON, GraphQL `errors[]` → the contract's codes, PerimeterX JSON blocks.
 * Accepts the `{data:{…}}` envelope and the data-only form public clients saved (`{browse:{…}}`, `{product:{…}}`).
 */
import { asRecord } from '../../util/json-path.js';
import { MarketlensError, upstreamChanged } from '../../errors.js';

interface GraphqlError {
  message?: unknown;
  extensions?: { code?: unknown };
}

/** Error codes that mean our document or variables no longer fit StockX's schema. */
const SCHEMA_CODES = new Set([
  'GRAPHQL_VALIDATION_FAILED',
  'GRAPHQL_PARSE_FAILED',
  'BAD_USER_INPUT',
  'PERSISTED_QUERY_NOT_SUPPORTED',
  'PERSISTED_QUERY_NOT_FOUND',
]);
const SCHEMA_MESSAGES =
  /Cannot query field|Unknown (?:type|argument|fragment)|got invalid value|Syntax Error|must have a selection|is not defined by type/i;

/**
 * The `data` object of a GraphQL answer, when `key` (e.g. `product`, `browse`) is in it and not null. Otherwise
 * throws: not found → not_found; schema errors → upstream_changed; other errors → upstream_error.
 * `null` at `key` without errors means "no such thing": not_found for `product`, upstream_changed for others.
 * @example graphqlData('{"data":{"product":{"id":"…"}}}', 'product', 'GetMarketData').product.id
 */
export function graphqlData(body: string, key: string, operation: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw upstreamChanged('resale-a', `${operation} answer is not JSON`, body);
  }
  const json = asRecord(parsed);
  if (!json) throw upstreamChanged('resale-a', `${operation} answer is not a GraphQL object`, body);
  if (typeof json.appId === 'string' && 'blockScript' in json) {
    throw new MarketlensError('upstream_blocked', `resale-a answered ${operation} with a bot challenge`);
  }
  const data = asRecord(json.data ?? (key in json ? json : undefined));
  // Partial errors (one resolver failing) still come with the data we asked for: keep it.
  if (data && data[key] != null) return data;
  const errors = (Array.isArray(json.errors) ? json.errors : []) as GraphqlError[];
  if (errors.length > 0) throw errorFor(errors, operation, body);
  if (data && key in data && data[key] === null) {
    if (key === 'product') throw new MarketlensError('not_found', `resale-a has no such product (${operation})`);
    throw upstreamChanged('resale-a', `${operation} answered ${key}: null`, body);
  }
  throw upstreamChanged('resale-a', `${operation} answer has no data.${key}`, body);
}

function errorFor(errors: GraphqlError[], operation: string, body: string): MarketlensError {
  const codes = errors.map((e) => String(e?.extensions?.code ?? ''));
  const messages = errors.map((e) => String(e?.message ?? ''));
  const summary = messages.filter(Boolean).join('; ').slice(0, 200) || codes.join(', ');
  if (codes.some((c) => SCHEMA_CODES.has(c)) || messages.some((m) => SCHEMA_MESSAGES.test(m))) {
    return upstreamChanged('resale-a', `${operation} rejected by the GraphQL schema: ${summary}`, body);
  }
  if (codes.some((c) => c === 'NOT_FOUND') || messages.some((m) => /not found|no product/i.test(m))) {
    return new MarketlensError('not_found', `resale-a has no such product (${operation}: ${summary})`);
  }
  if (codes.some((c) => c === 'FORBIDDEN' || c === 'UNAUTHENTICATED')) {
    return new MarketlensError('upstream_blocked', `resale-a refused ${operation}: ${summary}`);
  }
  return new MarketlensError('upstream_error', `resale-a answered ${operation} with errors: ${summary}`, {
    logContext: { snippet: body.slice(0, 500) },
  });
}
