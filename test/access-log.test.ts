/**
 * The access log (src/server/access-log.ts): one JSON line per request when it completes, in pino's line format with
 * the request id — written directly, so its shape is checked here against what pino itself writes.
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AccessLog } from '../src/server/access-log.js';
import { testApp } from './support/app.js';

function capture() {
  const lines: string[] = [];
  const logStream = new Writable({
    write(chunk, _enc, cb) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      cb();
    },
  });
  return { lines, logStream };
}

describe('access log', () => {
  it('one line per request, at completion, with the same fields and key order pino writes', async () => {
    const { lines, logStream } = capture();
    const app = await testApp({ MARKETLENS_LOG_LEVEL: 'info' }, { logStream });
    try {
      const res = await app.inject({ url: '/healthz?x="quoted"\\', headers: { 'x-request-id': 'req-1' } });
      expect(res.statusCode).toBe(200);
      const access = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.reqId === 'req-1');
      expect(access).toHaveLength(1);
      const line = access[0]!;
      expect(line).toMatchObject({
        level: 30,
        pid: process.pid,
        reqId: 'req-1',
        method: 'GET',
        url: '/healthz?x=%22quoted%22\\', // (inject encodes the quotes; the backslash must be escaped)
        statusCode: 200,
        msg: 'request completed',
      });
      expect(typeof line.time).toBe('number');
      expect(typeof line.responseTime).toBe('number');

      // pino's own line for the same fields: same keys in the same order.
      const reference: string[] = [];
      const ref = pino(
        {},
        new Writable({
          write(c, _e, cb) {
            reference.push(String(c));
            cb();
          },
        }),
      );
      ref
        .child({ reqId: 'req-1' })
        .info(
          { method: 'GET', url: line.url, remoteAddress: line.remoteAddress, statusCode: 200, responseTime: 1 },
          'request completed',
        );
      expect(Object.keys(line)).toEqual(Object.keys(JSON.parse(reference[0]!) as object));
    } finally {
      await app.close();
    }
  });

  it('no access line above info, and an answered error is still one line', async () => {
    const { lines, logStream } = capture();
    const app = await testApp({ MARKETLENS_LOG_LEVEL: 'warn' }, { logStream });
    try {
      await app.inject({ url: '/healthz', headers: { 'x-request-id': 'quiet' } });
      await app.inject({ url: '/no/such/route', headers: { 'x-request-id': 'missing' } });
      expect(lines.filter((l) => l.includes('"quiet"'))).toEqual([]);
      expect(lines.filter((l) => l.includes('"missing"') && l.includes('request completed'))).toEqual([]);
    } finally {
      await app.close();
    }
  });

  it('the client address is worked out only for a line that is written (behind a proxy it walks X-Forwarded-For)', () => {
    const { lines, logStream } = capture();
    let reads = 0;
    const request = {
      id: 'r1',
      method: 'GET',
      url: '/healthz',
      get ip() {
        reads++;
        return '198.51.100.23';
      },
    } as unknown as FastifyRequest;
    const reply = { statusCode: 200, elapsedTime: 1.5 } as unknown as FastifyReply;
    const quiet = new AccessLog(logStream, 'warn');
    expect(quiet.writes).toBe(false);
    quiet.requestCompleted(null, request, reply);
    expect({ reads, lines }).toEqual({ reads: 0, lines: [] });
    const loud = new AccessLog(logStream, 'info');
    expect(loud.writes).toBe(true);
    loud.requestCompleted(null, request, reply);
    expect(reads).toBe(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ reqId: 'r1', remoteAddress: '198.51.100.23', statusCode: 200 });
  });
});
