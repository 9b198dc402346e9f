/**
 * One error type for the whole service. Its `code` is a closed union (CONTRACT §3); `toProblem` in
 * src/server/problem.ts is the one place that turns it into HTTP.
 */
export const ERROR_CODES = {
  invalid_parameter: { status: 400, title: 'Invalid parameter', retryable: false },
  // HTTP-level failures before any route runs (src/server/client-errors.ts) and bodies over the limit.
  bad_request: { status: 400, title: 'Malformed HTTP request', retryable: false },
  request_timeout: { status: 408, title: 'Request not received in time', retryable: true },
  body_too_large: { status: 413, title: 'Request body too large', retryable: false },
  headers_too_large: { status: 431, title: 'Request headers too large', retryable: false },
  missing_api_key: { status: 401, title: 'Missing API key', retryable: false },
  invalid_api_key: { status: 401, title: 'Invalid API key', retryable: false },
  key_disabled: { status: 403, title: 'API key disabled', retryable: false },
  not_found: { status: 404, title: 'Product not found', retryable: false },
  route_not_found: { status: 404, title: 'Route not found', retryable: false },
  method_not_allowed: { status: 405, title: 'Method not allowed', retryable: false },
  rate_limited: { status: 429, title: 'Rate limit exceeded', retryable: true },
  quota_exceeded: { status: 429, title: 'Quota exceeded', retryable: true },
  internal: { status: 500, title: 'Internal error', retryable: false },
  not_implemented: { status: 501, title: 'Not implemented', retryable: false },
  upstream_error: { status: 502, title: 'Upstream error', retryable: true },
  upstream_changed: { status: 502, title: 'Upstream format changed', retryable: false },
  upstream_blocked: { status: 503, title: 'Upstream blocked the request', retryable: true },
  overloaded: { status: 503, title: 'Too many requests queued for this marketplace', retryable: true },
  circuit_open: { status: 503, title: 'Marketplace temporarily failing', retryable: true },
  upstream_timeout: { status: 504, title: 'Upstream timeout', retryable: true },
} as const satisfies Record<string, { status: number; title: string; retryable: boolean }>;

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
  readonly retryable: boolean;
  readonly errors?: ParamIssue[];
  readonly retryAfter?: number;
  readonly upstreamStatus?: number;
  readonly logContext?: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, options: MarketlensErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.status = ERROR_CODES[code].status;
    this.retryable = ERROR_CODES[code].retryable;
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
