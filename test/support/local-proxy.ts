/**
 * A tiny forward proxy on 127.0.0.1:0 for tests: absolute-URI requests (`GET http://host/path`, how clients send
 * plain-http requests through a proxy) and CONNECT tunnels (https). It logs what passed through, so a test can see
 * that traffic really went via this proxy; plain requests reach the target with `x-via-proxy: <proxy origin>`. `refuse()` makes it answer 502 to everything (a broken proxy).
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';

export interface ProxiedRequest {
  method: string;
  /** Absolute URI for plain requests; `host:port` for CONNECT. */
  target: string;
}

export class LocalProxy {
  readonly log: ProxiedRequest[] = [];
  origin = '';
  private server?: Server;
  private broken = false;
  private readonly sockets = new Set<Socket>();

  /** Every request from now on fails with 502, as a dead upstream proxy would. */
  refuse(on = true): this {
    this.broken = on;
    return this;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      this.log.push({ method: req.method ?? 'GET', target: req.url ?? '' });
      if (this.broken || !/^https?:\/\//.test(req.url ?? '')) {
        res.writeHead(502).end('bad gateway');
        return;
      }
      const target = new URL(req.url!);
      const upstream = httpRequest(
        {
          host: target.hostname,
          port: target.port,
          path: `${target.pathname}${target.search}`,
          method: req.method,
          headers: { ...req.headers, 'x-via-proxy': this.origin },
        },
        (up) => {
          res.writeHead(up.statusCode ?? 502, up.headers);
          up.pipe(res);
        },
      );
      upstream.on('error', () => res.destroy());
      req.pipe(upstream);
    });
    this.server.on('connect', (req, client: Socket, head) => {
      this.log.push({ method: 'CONNECT', target: req.url ?? '' });
      if (this.broken) {
        client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
        return;
      }
      const [host, port] = (req.url ?? '').split(':');
      const upstream = connect(Number(port), host, () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      upstream.on('error', () => client.destroy());
      client.on('error', () => upstream.destroy());
    });
    this.server.on('connection', (s: Socket) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.origin = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    if (!this.server) return;
    for (const s of this.sockets) s.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }
}
