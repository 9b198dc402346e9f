/**
 * HTTP errors raised before a route runs, answered in the one error shape (problem+json with a request id) instead
 * of Fastify's default JSON: Node's parser errors (`clientError`: headers too large → 431, a malformed request line
 * or header → 400, request/headers timeout → 408) and URLs the router cannot decode (`frameworkErrors`).
 */
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { MarketlensError } from '../errors.js';
import { normaliseError, sendProblem, toProblem } from './problem.js';

/** Node's parser error → our error (its message never reaches the client: it can echo raw bytes). */
function parserError(err: NodeJS.ErrnoException): MarketlensError {
  if (err.code === 'HPE_HEADER_OVERFLOW') {
    return new MarketlensError(
      'headers_too_large',
      'The request line and headers exceed the size this server reads (16 KiB)',
    );
  }
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT' || err.code === 'ERR_HTTP_HEADERS_TIMEOUT') {
    return new MarketlensError('request_timeout', 'The request was not received completely in time');
  }
  return new MarketlensError('bad_request', 'The request is not valid HTTP/1.1 (request line or headers malformed)');
}

/** Fastify's `clientErrorHandler`: a raw response on the socket, then close it (Node's own behaviour). */
export function clientErrorHandler(this: FastifyInstance, err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const error = parserError(err);
  const id = randomUUID();
  this.log.debug({ code: err.code, request_id: id }, 'client error');
  if (socket.writable) {
    const body = JSON.stringify(toProblem(error, id));
    socket.write(
      `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status]}\r\n` +
        `Content-Type: application/problem+json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-Id: ${id}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}

/** Fastify's `frameworkErrors`: a path that is not valid percent-encoding and the like → 400 naming the path. */
export function frameworkErrors(err: FastifyError, req: FastifyRequest, reply: FastifyReply): void {
  reply.header('x-request-id', req.id);
  if (err.code === 'FST_ERR_BAD_URL' || err.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    sendProblem(
      reply,
      new MarketlensError('invalid_parameter', 'path: is not a valid URL path', {
        errors: [{ param: 'path', message: 'is not a valid URL path' }],
      }),
    );
    return;
  }
  sendProblem(reply, normaliseError(err));
}
