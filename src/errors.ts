/**
 * One error type for the whole service. Its `code` is a closed union (CONTRACT §3) whose behaviour is the flags of
 * ERROR_CODES; `toProblem` in src/server/problem.ts is the one place that turns it into HTTP.
 */
/**
 * The behaviour of each code, as data (every set of codes elsewhere derives from these flags):
 * - `upstream`: the failure is on the marketplace's side (not the caller's, not ours). A multi-source lookup drops
 *   that source's part instead of failing, and stale-if-error may answer with an older record (`servesStale`).
 * - `marketplaceFailing`: the marketplace itself misbehaved (5xx, block, timeout): counts against its circuit
 *   breaker. A not-found or a changed format is the marketplace answering; a full queue or an open circuit is ours.
 */
const C = (status: number, title: string, flags: { upstream?: boolean; marketplaceFailing?: boolean } = {}) => ({
  status,
  title,
  upstream: flags.upstream ?? false,
  servesStale: flags.upstream ?? false,
  marketplaceFailing: flags.marketplaceFailing ?? false,
});

export const ERROR_CODES = {
  invalid_parameter: C(400, 'Invalid parameter'),
  // HTTP-level failures before any route runs (src/server/client-errors.ts) and bodies over the limit.
  bad_request: C(400, 'Malformed HTTP request'),
  request_timeout: C(408, 'Request not received in time'),
  body_too_large: C(413, 'Request body too large'),
  headers_too_large: C(431, 'Request headers too large'),
  missing_api_key: C(401, 'Missing API key'),
  invalid_api_key: C(401, 'Invalid API key'),
  key_disabled: C(403, 'API key disabled'),
  not_found: C(404, 'Product not found'),
  route_not_found: C(404, 'Route not found'),
  method_not_allowed: C(405, 'Method not allowed'),
  // A key owns as many webhook subscriptions / tracked products as allowed: delete one to add another.
  limit_reached: C(409, 'Limit reached'),
  rate_limited: C(429, 'Rate limit exceeded'),
  quota_exceeded: C(429, 'Quota exceeded'),
  internal: C(500, 'Internal error'),
  // The service's own database is down, restarting, busy or full (not a bug, not the caller's fault): retry shortly.
  database_unavailable: C(503, 'Database temporarily unavailable'),
  not_implemented: C(501, 'Not implemented'),
  upstream_error: C(502, 'Upstream error', { upstream: true, marketplaceFailing: true }),
  upstream_changed: C(502, 'Upstream format changed', { upstream: true }),
  upstream_blocked: C(503, 'Upstream blocked the request', { upstream: true, marketplaceFailing: true }),
  overloaded: C(503, 'Too many requests queued for this marketplace', { upstream: true }),
  circuit_open: C(503, 'Marketplace temporarily failing', { upstream: true }),
  upstream_timeout: C(504, 'Upstream timeout', { upstream: true, marketplaceFailing: true }),
  // The caller withdrew (an MCP client cancelled its tool call): 499, as proxies log a client that went away. Says
  // nothing about the marketplace (no breaker verdict, no failure recorded) and never serves a stale answer.
  cancelled: C(499, 'Cancelled by the caller'),
} as const satisfies Record<string, ReturnType<typeof C>>;

export type ErrorCode = keyof typeof ERROR_CODES;

export interface ParamIssue {
  param: string;
  message: string;
}

export interface MarketlensErrorOptions {
  /** Per-parameter problems, for invalid_parameter. */
  errors?: ParamIssue[];
  /** Seconds the caller should wait (429, 503). */
  retryAfter?: number;
  /** Upstream HTTP status, when the error came from an upstream answer. */
  upstreamStatus?: number;
  /** Log-only context (never sent to clients): e.g. a snippet of an unparseable payload. */
  logContext?: Record<string, unknown>;
  cause?: unknown;
}

/**
 * @example throw new MarketlensError('not_found', 'resale-b has no product 123')
 */
export class MarketlensError extends Error {
  override name = 'MarketlensError';
  readonly code: ErrorCode;
  readonly status: number;
  readonly errors?: ParamIssue[];
  readonly retryAfter?: number;
  readonly upstreamStatus?: number;
  readonly logContext?: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, options: MarketlensErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.status = ERROR_CODES[code].status;
    this.errors = options.errors;
    this.retryAfter = options.retryAfter;
    this.upstreamStatus = options.upstreamStatus;
    this.logContext = options.logContext;
  }
}

/** 400 for one parameter: the message names it. */
export function invalidParam(param: string, message: string): MarketlensError {
  return new MarketlensError('invalid_parameter', `${param}: ${message}`, { errors: [{ param, message }] });
}

/**
 * Upstream answered but the payload lacks the shape we parse. `snippet` goes to the log (the alarm that a parser
 * needs work), never to the client.
 */
export function upstreamChanged(marketplace: string, what: string, snippet?: string): MarketlensError {
  return new MarketlensError('upstream_changed', `${marketplace}: ${what}`, {
    logContext: snippet === undefined ? undefined : { snippet: snippet.slice(0, 500) },
  });
}

export function isMarketlensError(e: unknown): e is MarketlensError {
  return e instanceof MarketlensError;
}

/**
 * True for a failure on the marketplace's side: a multi-source lookup drops that source's part instead of failing.
 * @example isUpstreamFailure(new MarketlensError('upstream_blocked', '…')) // true
 */
export function isUpstreamFailure(e: unknown): e is MarketlensError {
  return e instanceof MarketlensError && ERROR_CODES[e.code].upstream;
}
