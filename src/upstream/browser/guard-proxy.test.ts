/**
 * The guard proxy outlives the browser behind it: a Chromium killed mid-connection resets its sockets to the proxy,
 * and a reset on a refused CONNECT, a tunnel or a plain request must not become an uncaught exception (it would take
 * the whole service down with the browser). Vitest fails the run on any uncaught exception, so each test passes only
 * if the reset is absorbed and the proxy still answers afterwards.
 */
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GuardProxy } from './guard-proxy.js';

/** Opens a raw connection to the proxy, sends `text`, and resolves with the socket once its first bytes arrive. */
function sendAndAwaitReply(port: number, text: string): Promise<{ socket: Socket; reply: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(text));
    socket.once('data', (chunk: Buffer) => resolve({ socket, reply: chunk.toString('latin1') }));
    socket.once('error', reject);
  });
}

/** Sends a TCP RST, as the kernel does for a SIGKILLed browser's sockets, and waits until the socket is closed. */
function reset(socket: Socket): Promise<void> {
  return new Promise((resolve) => {
    socket.on('error', () => undefined);
    socket.once('close', () => resolve());
    socket.resetAndDestroy();
  });
}

describe('guard proxy: a client that resets its connection', () => {
  let target: Server;
  let targetPort = 0;
  let proxy: GuardProxy;
  let proxyPort = 0;
  /** Each response the target sends is held until the test releases it. */
  const held: Array<() => void> = [];

  beforeAll(async () => {
    target = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('first part;');
      held.push(() => res.end('second part'));
    });
    await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
    targetPort = (target.address() as AddressInfo).port;
    proxy = await new GuardProxy((u) =>
      u.hostname === '127.0.0.1' && u.port === String(targetPort) ? undefined : 'not this marketplace',
    ).start();
    proxyPort = Number(new URL(proxy.origin).port);
  });
  afterAll(async () => {
    for (const release of held.splice(0)) release();
    await proxy.stop();
    await new Promise<void>((r) => target.close(() => r()));
  });

  /** The proxy still answers: a refused CONNECT gets its 403. */
  async function stillAnswers(): Promise<void> {
    const { socket, reply } = await sendAndAwaitReply(proxyPort, 'CONNECT 10.0.0.1:443 HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(reply).toMatch(/^HTTP\/1\.1 403 /);
    socket.destroy();
  }

  it('a reset right after a refused CONNECT', async () => {
    const { socket, reply } = await sendAndAwaitReply(proxyPort, 'CONNECT 169.254.169.254:443 HTTP/1.1\r\n\r\n');
    expect(reply).toMatch(/^HTTP\/1\.1 403 /);
    expect(proxy.refusals.at(-1)).toEqual({ target: '169.254.169.254:443', reason: 'not this marketplace' });
    await reset(socket);
    await stillAnswers();
  });

  it('a reset inside an open tunnel', async () => {
    const { socket, reply } = await sendAndAwaitReply(proxyPort, `CONNECT 127.0.0.1:${targetPort} HTTP/1.1\r\n\r\n`);
    expect(reply).toMatch(/^HTTP\/1\.1 200 /);
    await reset(socket);
    await stillAnswers();
  });

  it('a reset while a plain request is half answered', async () => {
    const { socket, reply } = await sendAndAwaitReply(
      proxyPort,
      `GET http://127.0.0.1:${targetPort}/page HTTP/1.1\r\nHost: 127.0.0.1:${targetPort}\r\n\r\n`,
    );
    expect(reply).toMatch(/^HTTP\/1\.1 200 /);
    await reset(socket);
    // The target finishes its answer into a proxy whose client is gone.
    for (const release of held.splice(0)) release();
    await stillAnswers();
  });
});
