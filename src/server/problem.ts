/**
 * The one mapping from errors to HTTP: RFC 9457 problem+json (CONTRACT §3). Nothing else writes error bodies,
 * and no stack trace or internal message of an unexpected error ever reaches a client.
 */
import type { FastifyError, FastifyReply } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { ERROR_CODES, MarketlensError, type ErrorCode, type ParamIssue } from '../errors.js';
import { isStoreUnavailable } from '../store/unavailable.js';

import { unknownKey } from '../param-errors.js';

export { zodToInvalidParameter } from '../param-errors.js';

/** Seconds a caller waits after a 503 database_unavailable: a restart or failover usually takes a few. */
const DATABASE_RETRY_AFTER_S = 5;

/** The largest request body read (the finder's JSON query needs a few hundred bytes). */
export const BODY_LIMIT_BYTES = 64 * 1024;

export interface Problem {
  type: string;
  title: string;
  status: number;
  code: ErrorCode;
  detail: string;
  error: ErrorCode;
  message: string;
  request_id: string;
  errors?: ParamIssue[];
}

export function toProblem(err: MarketlensError, requestId: string): Problem {
  const detail = err.message;
  return {
    type: `/docs/errors#${err.code}`,
    title: ERROR_CODES[err.code].title,
    status: err.status,
    code: err.code,
    detail,
    error: err.code,
    message: detail,
    request_id: requestId,
    ...(err.errors ? { errors: err.errors } : {}),
  };
}

export function sendProblem(reply: FastifyReply, err: MarketlensError): FastifyReply {
  if (err.retryAfter !== undefined) reply.header('retry-after', String(Math.max(0, Math.ceil(err.retryAfter))));
  return reply
    .code(err.status)
    .type('application/problem+json')
    .send(JSON.stringify(toProblem(err, String(reply.request.id))));
}

/**
 * Anything thrown inside a request → a MarketlensError. Known framework errors (validation, bad JSON body, body too
 * large) become 400s naming the parameter; everything else is `internal` with a generic message.
 */
export function normaliseError(e: unknown): MarketlensError {
  if (e instanceof MarketlensError) return e;
  if (hasZodFastifySchemaValidationErrors(e)) {
    const issues: ParamIssue[] = [];
    for (const v of e.validation) {
      const params = v.params as { keys?: string[] };
      if (v.keyword === 'unrecognized_keys' && params.keys) {
        const path = v.instancePath.split('/').filter(Boolean);
        for (const k of params.keys) issues.push(unknownKey(path, k));
      } else {
        // An error on the whole body (not an object) names the body, not a query-string parameter.
        const param =
          v.instancePath.replace(/^\//, '').split('/')[0] || (e.validationContext === 'body' ? 'body' : 'query');
        const raw = v.message ?? 'is invalid';
        const message = v.keyword === 'invalid_type' && /received undefined/.test(raw) ? 'is required' : raw;
        issues.push({ param, message });
      }
    }
    const summary = issues.map((i) => `${i.param}: ${i.message}`).join('; ');
    return new MarketlensError('invalid_parameter', summary, { errors: issues });
  }
  const fe = e as FastifyError;
  if (fe && fe.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return new MarketlensError(
      'body_too_large',
      `body: larger than the ${Math.round(BODY_LIMIT_BYTES / 1024)} KiB this service reads`,
      {
        errors: [{ param: 'body', message: 'is too large' }],
      },
    );
  }
  if (fe && typeof fe.code === 'string' && fe.code.startsWith('FST_ERR_CTP_')) {
    const message = 'request body is not valid JSON';
    return new MarketlensError('invalid_parameter', `body: ${message}`, { errors: [{ param: 'body', message }] });
  }
  if (fe && fe.statusCode === 415) {
    return new MarketlensError('invalid_parameter', 'body: unsupported content type (send application/json)', {
      errors: [{ param: 'body', message: 'unsupported content type' }],
    });
  }
  if (isStoreUnavailable(e)) {
    return new MarketlensError('database_unavailable', 'The database is unavailable right now; retry shortly', {
      retryAfter: DATABASE_RETRY_AFTER_S,
      cause: e,
    });
  }
  return new MarketlensError('internal', 'An internal error occurred; it has been logged with this request id', {
    cause: e,
  });
}
