/**
 * Hostile clients on raw sockets (issue 20, items 1 and 6): connections that never send a byte are closed within the
 * idle timeout while /healthz keeps answering; past MARKETLENS_MAX_CONNECTIONS a new connection gets a 503
 * problem+json and is closed; a request whose body drips in at 1 byte/s gets 408 within the request timeout.
 */
import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { testApp } from './support/app.js';

const IDLE_MS = 1500;
const REQUEST_MS = 2000;
/** How far the server's accept may trail the client's connect under a burst of 5 000 connections. */
const ACCEPT_LAG_MS = 8000;

let app: FastifyInstance | undefined;
const opened: Socket[] = [];
/** Connections the server has accepted (refused ones included) since `listen`. */
let accepted = 0;
/** Each accepted connection as the server saw it: when accepted, when closed. */
let serverSide: Array<{ at: number; closedAt?: number; silent: boolean }> = [];

afterEach(async () => {
  for (const s of opened.splice(0)) s.destroy();
  await app?.close();
  app = undefined;
});

async function listen(env: Record<string, string>): Promise<number> {
  app = await testApp({
    MARKETLENS_IDLE_TIMEOUT_MS: String(IDLE_MS),
    MARKETLENS_REQUEST_TIMEOUT_MS: String(REQUEST_MS),
    ...env,
  });
  // A backlog as deep as the kernel allows: with the default (511), a burst of connections that outruns the server's
  // accepts leaves client-side "connected" sockets the server never sees, and so can never close.
  await app.listen({ host: '127.0.0.1', port: 0, backlog: 4096 });
  accepted = 0;
  serverSide = [];
  app.server.on('connection', (socket: Socket) => {
    accepted++;
    const entry: { at: number; closedAt?: number; silent: boolean } = { at: Date.now(), silent: true };
    serverSide.push(entry);
    socket.once('data', () => (entry.silent = false));
    socket.once('close', () => (entry.closedAt = Date.now()));
  });
  return (app.server.address() as { port: number }).port;
}

/** Opens `n` sockets that never write; resolves once all are connected. Each records when it was closed. */
interface Silent {
  socket: Socket;
  connectedAt: number;
  closedAt?: number;
}

async function silentSockets(port: number, n: number): Promise<Silent[]> {
  const out: Silent[] = [];
  const batch = 100;
  const acceptedBefore = accepted;
  for (let i = 0; i < n; i += batch) {
    // Paced by the server's accepts: a burst that outruns them overflows the kernel's accept queue, whose dropped
    // handshakes leave client-side "connected" sockets the server sees only seconds later (or never).
    const acceptBy = Date.now() + ACCEPT_LAG_MS;
    while (accepted - acceptedBefore < i && Date.now() < acceptBy) await new Promise((r) => setTimeout(r, 2));
    await Promise.all(
      Array.from({ length: Math.min(batch, n - i) }, () => {
        return new Promise<void>((resolve, reject) => {
          const socket = connect(port, '127.0.0.1');
          const entry: Silent = { socket, connectedAt: 0 };
          out.push(entry);
          opened.push(socket);
          socket.on('error', () => undefined);
          socket.on('close', () => (entry.closedAt = Date.now()));
          socket.once('connect', () => {
            entry.connectedAt = Date.now();
            resolve();
          });
          socket.once('error', reject);
        });
      }),
    );
  }
  return out;
}

function healthz(port: number): Promise<{ status: number; ms: number }> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path: '/healthz', agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: Date.now() - started }));
    });
    req.on('error', reject);
    req.setTimeout(3000, () => req.destroy(new Error('healthz timed out')));
    req.end();
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('client connection limits', () => {
  it('closes 5 000 silent connections within the idle timeout while /healthz keeps answering', async () => {
    const port = await listen({ MARKETLENS_MAX_CONNECTIONS: '6000' });
    // /healthz is polled during the whole run: while the sockets are opened, held and closed.
    const health: Array<{ status: number; ms: number }> = [];
    let polling = true;
    const poller = (async () => {
      while (polling) {
        health.push(await healthz(port).catch(() => ({ status: 0, ms: -1 })));
        await sleep(100);
      }
    })();
    const sockets = await silentSockets(port, 5000);
    const lastConnect = Math.max(...sockets.map((s) => s.connectedAt));
    while (sockets.some((s) => s.closedAt === undefined) && Date.now() < lastConnect + IDLE_MS + ACCEPT_LAG_MS)
      await sleep(100);
    polling = false;
    await poller;
    // The service's side: every silent connection it accepted was closed IDLE_MS after its accept, never before, and
    // it holds none now.
    const silent = serverSide.filter((c) => c.silent);
    expect(silent.length).toBeGreaterThanOrEqual(4900);
    expect(silent.filter((c) => c.closedAt === undefined)).toHaveLength(0);
    const lifetimes = silent.map((c) => c.closedAt! - c.at);
    expect(Math.min(...lifetimes)).toBeGreaterThanOrEqual(IDLE_MS - 50);
    expect(Math.max(...lifetimes)).toBeLessThan(IDLE_MS + 1000);
    expect(app!.marketlens.connections.open).toBe(0);
    // The clients' side saw those closes, except for handshakes the kernel completed only on the client's side: a
    // burst of 5 000 connects overflows the server's SYN and accept queues (SYN cookies then keep no server state),
    // leaving a client socket "connected" to nothing the service can see. Measured here: 0 to 3 % of a run.
    const unseen = sockets.filter((s) => s.closedAt === undefined).length;
    expect(unseen, `${unseen} client sockets never saw a close`).toBeLessThan(sockets.length * 0.05);
    expect(health.length).toBeGreaterThan(5);
    expect(health.filter((h) => h.status !== 200)).toEqual([]);
    expect((await healthz(port)).status).toBe(200);
  }, 60_000);

  it('refuses a connection past MARKETLENS_MAX_CONNECTIONS with a 503 problem+json, and serves again once they leave', async () => {
    const port = await listen({ MARKETLENS_MAX_CONNECTIONS: '20' });
    const holders = await silentSockets(port, 20);
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
    expect(app!.marketlens.connections.refusedTotal).toBe(1);
    for (const h of holders) h.socket.destroy();
    await sleep(100);
    expect((await healthz(port)).status).toBe(200);
  });

  it('answers 408 to 20 requests whose body drips at 1 byte/s, within the request timeout', async () => {
    const port = await listen({});
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
