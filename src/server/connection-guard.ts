/**
 * Limits on client connections that Node's HTTP server does not apply by itself (issue 20):
 * - a connection that has not completed a request within `idleTimeoutMs` is destroyed. Node's headersTimeout only
 *   counts once a request has started, so a socket that never sends a byte would otherwise stay open for ever and
 *   thousands of them exhaust the file descriptors (every request, /healthz included, then fails);
 * - at most `maxConnections` at once: past it a new connection gets a short 503 problem+json and is closed, instead
 *   of the process running out of descriptors;
 * - on shutdown, `closeIdle()` ends the connections no request is being answered on: silent or half-sent ones, idle
 *   keep-alive ones, and those whose request body has not arrived in full and whose handler has not started (a
 *   client sending `Content-Length: 1000` and one byte could otherwise hold the exit for the whole request timeout;
 *   a HEAD lookup runs without reading its body, so a started handler counts as in flight); `destroyAll()` ends the
 *   rest once the grace period is over.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import type { Socket } from 'node:net';
import { MarketlensError } from '../errors.js';
import { toProblem } from './problem.js';

export interface ConnectionGuardOptions {
  idleTimeoutMs: number;
  maxConnections: number;
}

/** Written raw, before any HTTP parsing (the connection is never handed to the server): why, and when to come back. */
function refusal(): string {
  const body = JSON.stringify(
    toProblem(
      new MarketlensError('overloaded', 'Too many open connections to this server; retry shortly'),
      randomUUID(),
    ),
  );
  return (
    'HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/problem+json\r\nRetry-After: 1\r\nConnection: close\r\n' +
    `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
  );
}

interface Tracked {
  /** Set until the connection's first request has arrived in full (headers parsed). */
  idleTimer?: NodeJS.Timeout;
  /** Requests on this connection still being answered. */
  active: Set<IncomingMessage>;
}

export class ConnectionGuard {
  private readonly sockets = new Map<Socket, Tracked>();
  private readonly handling = new WeakSet<IncomingMessage>();
  private refused = 0;

  /** @example new ConnectionGuard(app.server, { idleTimeoutMs: 10_000, maxConnections: 4096 }) */
  constructor(
    server: Server,
    private readonly options: ConnectionGuardOptions,
  ) {
    // Node's own HTTP listener (the parser) only sees the connections let in: a refused one never reaches it.
    const http = server.listeners('connection') as Array<(s: Socket) => void>;
    server.removeAllListeners('connection');
    server.on('connection', (socket: Socket) => {
      if (this.admit(socket)) for (const l of http) l.call(server, socket);
    });
    server.on('request', (req, res) => {
      const t = this.sockets.get(req.socket);
      if (!t) return;
      if (t.idleTimer) clearTimeout(t.idleTimer);
      t.idleTimer = undefined;
      t.active.add(req);
      res.once('close', () => {
        t.active.delete(req);
      });
    });
  }

  /** Open client connections (refused ones excluded). */
  get open(): number {
    return this.sockets.size;
  }

  /** Connections refused because the cap was reached, since start. */
  get refusedTotal(): number {
    return this.refused;
  }

  /** Records that `req`'s handler has started: from then on it is in flight, whether or not its body is in. */
  handlerStarted(req: IncomingMessage): void {
    this.handling.add(req);
  }

  /**
   * Ends every connection that has no request being answered: silent, half-sent and idle keep-alive ones, and those
   * whose every request still waits for its body (`complete` turns true once the whole message is in) with no
   * handler started.
   */
  closeIdle(): void {
    for (const [socket, t] of this.sockets) {
      if ([...t.active].every((req) => !req.complete && !this.handling.has(req))) socket.destroy();
    }
  }

  /** Ends every connection (the shutdown grace period is over). */
  destroyAll(): void {
    for (const socket of this.sockets.keys()) socket.destroy();
  }

  private admit(socket: Socket): boolean {
    if (this.sockets.size >= this.options.maxConnections) {
      this.refused++;
      // Answer, then close once the answer is flushed (or after 1 s if the client does not read it).
      socket.on('error', () => undefined);
      socket.write(refusal(), () => socket.destroy());
      setTimeout(() => socket.destroy(), 1000).unref();
      return false;
    }
    const t: Tracked = { active: new Set() };
    // Idle until a request arrives; after an answer, Node's keepAliveTimeout takes over for that connection.
    t.idleTimer = setTimeout(() => {
      if (t.active.size === 0) socket.destroy();
    }, this.options.idleTimeoutMs);
    t.idleTimer.unref();
    this.sockets.set(socket, t);
    socket.once('close', () => {
      if (t.idleTimer) clearTimeout(t.idleTimer);
      this.sockets.delete(socket);
    });
    return true;
  }
}
