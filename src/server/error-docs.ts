/**
 * GET /docs/errors: what each problem `type` (`/docs/errors#<code>`) means, generated from ERROR_CODES so a new code
 * cannot ship without its explanation (the map below must name every code to typecheck). Public, like /docs.
 */
import type { FastifyInstance } from 'fastify';
import { ERROR_CODES, type ErrorCode } from '../errors.js';

export const ERROR_DOCS_PATH = '/docs/errors';

interface ErrorGuide {
  meaning: string;
  action: string;
  /** The answer carries Retry-After (seconds) when the service knows how long to wait. */
  retryAfter?: boolean;
}

const GUIDE: Record<ErrorCode, ErrorGuide> = {
  invalid_parameter: {
    meaning: 'A parameter is missing, unknown or has a value the operation cannot use. `errors[]` names each one.',
    action: 'Fix the named parameters (see /docs for each operation) and send the request again.',
  },
  bad_request: { meaning: 'The HTTP request itself is malformed.', action: 'Fix the client; do not retry as is.' },
  request_timeout: {
    meaning: 'The request was not received completely in time.',
    action: 'Retry; check the network between you and the service.',
  },
  body_too_large: { meaning: 'The request body is over the size limit.', action: 'Send a smaller body.' },
  headers_too_large: {
    meaning: 'The request headers are over the size limit.',
    action: 'Send fewer or shorter headers.',
  },
  missing_api_key: {
    meaning: 'The route needs an API key and none was sent.',
    action: 'Send your key in `x-api-key`.',
  },
  invalid_api_key: { meaning: 'The API key is not known.', action: 'Check the key; ask the operator for a new one.' },
  key_disabled: { meaning: 'The API key exists but is disabled.', action: 'Ask the operator to enable it.' },
  not_found: {
    meaning: 'The marketplace answered that the product (or listing) does not exist.',
    action: 'Check the identifier; retrying will not change the answer.',
  },
  route_not_found: { meaning: 'No route has this path.', action: 'See /docs for the routes.' },
  method_not_allowed: { meaning: 'The path exists but not for this method.', action: 'Use the method in `Allow`.' },
  limit_reached: {
    meaning: 'The key owns as many of these things (webhook subscriptions, tracked products) as it may.',
    action: 'Delete one to add another, or ask the operator for a higher limit.',
  },
  rate_limited: {
    meaning: "Too many requests for the key's rate limit.",
    action: 'Wait the Retry-After seconds, then retry; spread requests out.',
    retryAfter: true,
  },
  quota_exceeded: {
    meaning: "The key's daily or monthly quota is used up.",
    action: 'Wait the Retry-After seconds (until the period resets) or ask for a higher quota.',
    retryAfter: true,
  },
  internal: { meaning: 'A bug in the service.', action: 'Report it with the `request_id`; retrying may not help.' },
  database_unavailable: {
    meaning: "The service's own database is down, restarting, busy or full.",
    action: 'Retry shortly (after Retry-After when given).',
    retryAfter: true,
  },
  not_implemented: { meaning: 'The service does not do this (yet).', action: 'Do not retry.' },
  upstream_error: {
    meaning: 'The marketplace failed (an HTTP 5xx or a broken answer).',
    action: 'Retry later; `max_age` may serve an older cached answer.',
  },
  upstream_changed: {
    meaning: "The marketplace's page or API no longer looks like what the parser reads: its format changed.",
    action: 'Retrying will not help until the parser is updated; report it.',
  },
  upstream_blocked: {
    meaning: 'The marketplace refused the request (a bot challenge or a block).',
    action: 'Retry later (after Retry-After when given); the operator may need a proxy or a browser tier.',
    retryAfter: true,
  },
  overloaded: {
    meaning: 'Too many requests are queued for this marketplace.',
    action: 'Retry after Retry-After seconds.',
    retryAfter: true,
  },
  circuit_open: {
    meaning: 'The marketplace has failed repeatedly, so the service stops asking it for a while.',
    action: 'Retry after Retry-After seconds, when the service tries the marketplace again.',
    retryAfter: true,
  },
  upstream_timeout: {
    meaning: 'The marketplace did not answer within the deadline.',
    action: 'Retry later; `max_age` may serve an older cached answer.',
  },
  cancelled: {
    meaning:
      'The caller withdrew its request before the answer (an MCP client cancelled its tool call); the lookup stopped unless another caller still waited on it.',
    action: 'Nothing to do: ask again when the answer is wanted.',
  },
};

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`).replace(/`([^`]+)`/g, '<code>$1</code>');

/** The page: one section per code, its anchor the code itself. */
export function renderErrorDocs(): string {
  const sections = (Object.keys(ERROR_CODES) as ErrorCode[]).map((code) => {
    const { status, title } = ERROR_CODES[code];
    const g = GUIDE[code];
    return `<section id="${code}"><h2><a href="#${code}">${code}</a> <small>HTTP ${status} · ${escapeHtml(title)}</small></h2>
<p>${escapeHtml(g.meaning)}</p><p><b>What to do:</b> ${escapeHtml(g.action)}</p>${
      g.retryAfter ? '<p>The answer carries <code>Retry-After</code> (seconds) when the wait is known.</p>' : ''
    }</section>`;
  });
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>marketlens errors</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:50rem;margin:2rem auto;padding:0 1rem}small{color:#666;font-weight:normal}section:target{background:#ffd}</style>
</head><body><h1>Error codes</h1><p>Every error is an <code>application/problem+json</code> document whose <code>type</code> links here and whose <code>code</code> names one of these.</p>
${sections.join('\n')}
</body></html>`;
}

/** Registers the page (hidden from the OpenAPI document; a static path, so it wins over Swagger UI's `/docs/*`). */
export function registerErrorDocs(app: FastifyInstance): void {
  const page = renderErrorDocs();
  app.get(ERROR_DOCS_PATH, { schema: { hide: true } }, (_req, reply) =>
    reply.type('text/html; charset=utf-8').header('cache-control', 'public, max-age=3600').send(page),
  );
}
