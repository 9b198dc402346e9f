/**
 * Hostile clients on raw sockets (issue 20, items 1 and 6): past MARKETLENS_MAX_CONNECTIONS a new connection gets a
 * 503 problem+json and is closed; a request whose body drips in at 1 byte/s gets 408 within the request timeout. (The
 * flood of 5 000 silent connections closed within the idle timeout, item 1: test/connection-flood.test.ts, in
 * `npm run test:long`.)
 */
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { REQUEST_MS, closeAll, healthz, listen, opened, silentSockets, sleep } from './support/connection-server.js';

afterEach(closeAll);

describe('client connection limits', () => {
  it('refuses a connection past MARKETLENS_MAX_CONNECTIONS with a 503 problem+json, and serves again once they leave', async () => {
    const server = await listen({ MARKETLENS_MAX_CONNECTIONS: '20' });
    const { app, port } = server;
    const holders = await silentSockets(server, 20);
    const answer = await new Promise<string>((resolve) => {
      let text = '';
      const s = connect(port, '127.0.0.1', () => s.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n'));
      opened.push(s);
      s.setEncoding('utf8');
      s.on('data', (d: string) => (text += d));
      s.on('error', () => undefined);
      s.on('close', () => resolve(text));
    });
    expect(answer).toMatch(/^HTTP\/1\.1 503 /);
    expect(answer).toMatch(/content-type: application\/problem\+json/i);
    expect(answer).toMatch(/retry-after: 1/i);
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toMatchObject({ status: 503, code: 'overloaded' });
    expect(app.marketlens.connections.refusedTotal).toBe(1);
    for (const h of holders) h.socket.destroy();
    await sleep(100);
    expect((await healthz(port)).status).toBe(200);
  });

  it('answers 408 to 20 requests whose body drips at 1 byte/s, within the request timeout', async () => {
    const { port } = await listen({});
    const started = Date.now();
    const dripping = Array.from({ length: 20 }, () => {
      return new Promise<{ text: string; ms: number }>((resolve) => {
        let text = '';
        const s = connect(port, '127.0.0.1', () => {
          s.write(
            'GET /api/v2/finder/watchmarket-search HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
              'x-api-key: ml_test_key_for_http_tests_0123456789\r\nContent-Length: 60000\r\n\r\n',
          );
          const drip = setInterval(() => (s.writable ? s.write('{') : clearInterval(drip)), 1000);
          s.on('close', () => clearInterval(drip));
        });
        opened.push(s);
        s.setEncoding('utf8');
        s.on('data', (d: string) => (text += d));
        s.on('error', () => undefined);
        s.on('close', () => resolve({ text, ms: Date.now() - started }));
      });
    });
    const answers = await Promise.all(dripping);
    for (const a of answers) {
      expect(a.text).toMatch(/^HTTP\/1\.1 408 /);
      expect(a.ms).toBeLessThan(REQUEST_MS + 2500);
    }
  }, 15_000);
});
