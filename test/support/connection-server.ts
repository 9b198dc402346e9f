/**
 * A service on a real socket for the connection-limit tests (test/connection-limits.test.ts, and its flood,
 * test/connection-flood.test.ts in `npm run test:long`): what the server saw of each connection, silent client
 * sockets paced by the server's accepts, and a /healthz probe on a fresh connection.
 */
import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { testApp } from './app.js';

export const IDLE_MS = 1500;
export const REQUEST_MS = 2000;
/** How far the server's accept may trail the client's connect under a burst of 5 000 connections. */
export const ACCEPT_LAG_MS = 8000;

/** One accepted connection as the server saw it: when accepted, when closed, whether it ever sent a byte. */
export interface ServerSide {
  at: number;
  closedAt?: number;
  silent: boolean;
}

/** A silent client socket, and when it connected and was closed. */
export interface Silent {
  socket: Socket;
  connectedAt: number;
  closedAt?: number;
  /** Settles when the socket closes. */
  closed: Promise<void>;
}

export interface ConnectionServer {
  app: FastifyInstance;
  port: number;
  /** Connections the server has accepted (refused ones included) since `listen`. */
  accepted(): number;
  serverSide: ServerSide[];
}

/** Client sockets the tests opened, destroyed by `closeAll`. */
export const opened: Socket[] = [];

let current: ConnectionServer | undefined;

/** Destroys every client socket and closes the server: each test's afterEach. */
export async function closeAll(): Promise<void> {
  for (const s of opened.splice(0)) s.destroy();
  await current?.app.close();
  current = undefined;
}

export async function listen(env: Record<string, string>): Promise<ConnectionServer> {
  const app = await testApp({
    MARKETLENS_IDLE_TIMEOUT_MS: String(IDLE_MS),
    MARKETLENS_REQUEST_TIMEOUT_MS: String(REQUEST_MS),
    ...env,
  });
  // A backlog as deep as the kernel allows: with the default (511), a burst of connections that outruns the server's
  // accepts leaves client-side "connected" sockets the server never sees, and so can never close.
  await app.listen({ host: '127.0.0.1', port: 0, backlog: 4096 });
  let accepted = 0;
  const serverSide: ServerSide[] = [];
  app.server.on('connection', (socket: Socket) => {
    accepted++;
    const entry: ServerSide = { at: Date.now(), silent: true };
    serverSide.push(entry);
    socket.once('data', () => (entry.silent = false));
    socket.once('close', () => (entry.closedAt = Date.now()));
  });
  current = { app, port: (app.server.address() as { port: number }).port, accepted: () => accepted, serverSide };
  return current;
}

/** Opens `n` sockets that never write; resolves once all are connected. Each records when it was closed. */
export async function silentSockets(server: ConnectionServer, n: number): Promise<Silent[]> {
  const out: Silent[] = [];
  const batch = 100;
  const acceptedBefore = server.accepted();
  for (let i = 0; i < n; i += batch) {
    // Paced by the server's accepts: a burst that outruns them overflows the kernel's accept queue, whose dropped
    // handshakes leave client-side "connected" sockets the server sees only seconds later (or never).
    const acceptBy = Date.now() + ACCEPT_LAG_MS;
    while (server.accepted() - acceptedBefore < i && Date.now() < acceptBy) await sleep(2);
    await Promise.all(
      Array.from({ length: Math.min(batch, n - i) }, () => {
        return new Promise<void>((resolve, reject) => {
          const socket = connect(server.port, '127.0.0.1');
          let closed!: () => void;
          const entry: Silent = { socket, connectedAt: 0, closed: new Promise<void>((r) => (closed = r)) };
          out.push(entry);
          opened.push(socket);
          socket.on('error', () => undefined);
          socket.on('close', () => {
            entry.closedAt = Date.now();
            closed();
          });
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

export function healthz(port: number): Promise<{ status: number; ms: number }> {
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

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
