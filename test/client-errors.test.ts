/**
 * Errors Node's HTTP parser raises before a request exists, over raw sockets: answered in the one error shape
 * (problem+json with a request id), not Fastify's default JSON. Also a path the router cannot decode.
 */
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientErrorHandler } from '../src/server/client-errors.js';
import { TEST_KEY, testApp } from './support/app.js';
import { expectProblem } from './support/problem.js';

/** Writes raw bytes, reads until the server closes (or 5 s), and splits the HTTP answer. */
function raw(
  port: number,
  bytes: string | Buffer,
): Promise<{ statusCode: number; headers: Record<string, string>; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.setTimeout(5000, () => socket.destroy(new Error('no answer in 5 s')));
    socket.on('data', (c: Buffer) => chunks.push(c));
    // The server may close while we are still writing a large header: EPIPE/ECONNRESET then, with the answer read.
    socket.on('error', (e) => (chunks.length > 0 ? undefined : reject(e)));
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', ...rest] = text.split('\r\n\r\n');
      const [status = '', ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(
        lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
      );
      resolve({ statusCode: Number(status.split(' ')[1]), headers, body: rest.join('\r\n\r\n') });
    });
    socket.write(bytes);
  });
}

describe('HTTP errors before a route runs', () => {
  let app: FastifyInstance;
  let port: number;
  beforeAll(async () => {
    app = await testApp();
    await app.listen({ host: '127.0.0.1', port: 0 });
    port = (app.server.address() as AddressInfo).port;
  });
  afterAll(() => app.close());

  it('a 1 MB header → 431 problem+json with a request id', async () => {
    const res = await raw(port, `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(1024 * 1024)}\r\n\r\n`);
    const body = expectProblem(res, 431, 'headers_too_large');
    expect(res.headers['x-request-id']).toBe(body.request_id);
    expect(body.request_id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('a bad request line → 400 problem+json (bad_request)', async () => {
    const res = await raw(port, 'GARBAGE\r\n\r\n');
    const body = expectProblem(res, 400, 'bad_request');
    expect(res.headers['x-request-id']).toBe(body.request_id);
  });

  it('a malformed header line → 400 problem+json', async () => {
    expectProblem(await raw(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n'), 400, 'bad_request');
  });

  it('a path with bad percent-encoding → 400 naming the path, with the request id header', async () => {
    const res = await raw(
      port,
      `GET /api/v1/scraper/goat/%zz HTTP/1.1\r\nHost: x\r\nx-api-key: ${TEST_KEY}\r\nConnection: close\r\n\r\n`,
    );
    const body = expectProblem(res, 400, 'invalid_parameter');
    expect(body.errors).toEqual([{ param: 'path', message: 'is not a valid URL path' }]);
    expect(res.headers['x-request-id']).toBe(body.request_id);
  });

  it("a request timeout (Node's requestTimeout/headersTimeout, set by the server options) → 408 problem+json", () => {
    // The timeouts themselves are minutes long; the handler is given Node's error directly.
    let written = '';
    let destroyed = false;
    const socket = {
      destroyed: false,
      writable: true,
      write: (s: string) => (written += s),
      destroy: () => (destroyed = true),
    };
    const err = Object.assign(new Error('Request timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' });
    clientErrorHandler.call(app, err, socket as never);
    const [head = '', body = ''] = written.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(head).toMatch(/\r\nContent-Type: application\/problem\+json\r\n/i);
    expect(JSON.parse(body)).toMatchObject({ status: 408, code: 'request_timeout' });
    expect(destroyed).toBe(true);
  });

  it('the service keeps answering afterwards', async () => {
    const res = await raw(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(res.statusCode).toBe(200);
  });
});
