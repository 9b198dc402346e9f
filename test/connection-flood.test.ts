/**
 * A flood of hostile clients on raw sockets (issue 20, item 1), in `npm run test:long`: 5 000 connections that never
 * send a byte are all closed within the idle timeout while /healthz keeps answering.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  ACCEPT_LAG_MS,
  IDLE_MS,
  closeAll,
  healthz,
  listen,
  silentSockets,
  sleep,
} from './support/connection-server.js';

afterEach(closeAll);

describe('client connection flood', () => {
  it('closes 5 000 silent connections within the idle timeout while /healthz keeps answering', async () => {
    const server = await listen({ MARKETLENS_MAX_CONNECTIONS: '6000' });
    const { app, port, serverSide } = server;
    // /healthz is polled during the whole run: while the sockets are opened, held and closed.
    const health: Array<{ status: number; ms: number }> = [];
    let polling = true;
    const poller = (async () => {
      while (polling) {
        health.push(await healthz(port).catch(() => ({ status: 0, ms: -1 })));
        await sleep(100);
      }
    })();
    const sockets = await silentSockets(server, 5000);
    const lastConnect = Math.max(...sockets.map((s) => s.connectedAt));
    // Every close, or the deadline: a handshake completed only on the client's side never sees one (counted below).
    let deadline: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(sockets.map((s) => s.closed)),
      new Promise((r) => (deadline = setTimeout(r, lastConnect + IDLE_MS + ACCEPT_LAG_MS - Date.now()))),
    ]);
    clearTimeout(deadline);
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
    expect(app.marketlens.connections.open).toBe(0);
    // The clients' side saw those closes, except for handshakes the kernel completed only on the client's side: a
    // burst of 5 000 connects overflows the server's SYN and accept queues (SYN cookies then keep no server state),
    // leaving a client socket "connected" to nothing the service can see. Measured here: 0 to 3 % of a run.
    const unseen = sockets.filter((s) => s.closedAt === undefined).length;
    expect(unseen, `${unseen} client sockets never saw a close`).toBeLessThan(sockets.length * 0.05);
    expect(health.length).toBeGreaterThan(5);
    expect(health.filter((h) => h.status !== 200)).toEqual([]);
    expect((await healthz(port)).status).toBe(200);
  }, 60_000);
});
