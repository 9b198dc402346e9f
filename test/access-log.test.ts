/**
 * The access log (src/server/access-log.ts): one JSON line per request when it completes, in pino's line format with
 * the request id — written directly, so its shape is checked here against what pino itself writes.
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
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
});
