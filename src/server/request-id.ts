/**
 * The request id of a request: a sane caller-supplied `X-Request-Id` is echoed, otherwise one is minted. Fastify's
 * `genReqId` and the cached-hit path (hit-path.ts) both take it from here.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/** What an echoed id may hold. */
const REQUEST_ID = /^[\w.:-]{1,128}$/;

/** @example requestIdOf({ 'x-request-id': 'trace-abc.123' }) // 'trace-abc.123' */
export function requestIdOf(headers: IncomingHttpHeaders): string {
  const given = headers['x-request-id'];
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
}
