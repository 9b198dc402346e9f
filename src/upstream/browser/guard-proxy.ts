/**
 * The browser's SSRF guard: every connection Chromium opens (navigations, redirect hops, subresources, fetch(),
 * WebSockets, service workers, prefetches) goes through this local forward proxy, which refuses any target the
 * marketplace does not own. Playwright's request routing alone is not enough: it never sees redirect hops, so a
 * marketplace URL answering `302 Location: http://169.254.169.254/` would be followed. HTTPS stays end-to-end
 * (CONNECT tunnel), so the browser's own TLS fingerprint reaches the site unchanged.
 */
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';

/** Why a target may not be reached, or undefined when it may. */
export type TargetCheck = (target: URL) => string | undefined;

export interface Refusal {
  target: string;
  reason: string;
}

const HOP_BY_HOP = /^(proxy-connection|proxy-authorization|connection|keep-alive)$/i;

export class GuardProxy {
  /** Recent refusals (newest last, at most 50): what the page tried to reach, for error messages and tests. */
  readonly refusals: Refusal[] = [];
  private server?: Server;
  private readonly sockets = new Set<Socket>();
  origin = '';

  /**
   * @example const proxy = await new GuardProxy((u) => urlRejection('resale-b', u)).start(); // proxy.origin
   */
  constructor(private readonly check: TargetCheck) {}

  async start(): Promise<this> {
    const server = createServer((req, res) => {
      const target = parseAbsolute(req.url);
      const why = target ? this.check(target) : 'not an absolute http URL';
      if (why !== undefined || !target) {
        this.note(req.url ?? '', why ?? 'refused');
        res.writeHead(403, { 'content-type': 'text/plain' }).end(`marketlens browser guard: ${why}`);
        return;
      }
      const headers = stripHopByHop(req.rawHeaders);
      const upstream = httpRequest(
        {
          host: target.hostname,
          port: target.port || 80,
          path: `${target.pathname}${target.search}`,
          method: req.method,
          headers,
        },
        (up) => {
          res.writeHead(up.statusCode ?? 502, stripHopByHop(up.rawHeaders));
          up.on('error', () => res.destroy());
          up.pipe(res);
        },
      );
      upstream.on('error', () => res.destroy());
      // A browser killed mid-request resets its socket: that ends this exchange, never the service.
      req.on('error', () => upstream.destroy());
      res.on('error', () => upstream.destroy());
      req.pipe(upstream);
    });
    server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
      // Node hands a CONNECT's socket over without its own error listener: a browser killed now (even right after a
      // refusal) resets it, and an 'error' nobody listens to would end the process.
      client.on('error', () => client.destroy());
      const target = parseAuthority(req.url);
      const why = target ? this.check(target) : 'not a host:port target';
      if (why !== undefined || !target) {
        this.note(req.url ?? '', why ?? 'refused');
        client.end('HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n');
        return;
      }
      const upstream = connect(Number(target.port || 443), target.hostname, () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        if (head.length > 0) upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      this.track(upstream);
      upstream.on('error', () => client.destroy());
      client.on('close', () => upstream.destroy());
    });
    // Chromium tunnels WebSockets with CONNECT; a plain-proxy Upgrade is not something it sends, so refuse it.
    server.on('upgrade', (req: IncomingMessage, socket: Socket) => {
      socket.on('error', () => undefined);
      this.note(req.url ?? '', 'upgrade requests are not proxied');
      socket.destroy();
    });
    server.on('connection', (s: Socket) => this.track(s));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', resolve);
    });
    this.server = server;
    this.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Records a refused target (also used by the page-level routing, so both guards report in one place). */
  note(target: string, reason: string): void {
    this.refusals.push({ target, reason });
    if (this.refusals.length > 50) this.refusals.shift();
  }

  private track(s: Socket): void {
    this.sockets.add(s);
    s.on('close', () => this.sockets.delete(s));
  }
}

function parseAbsolute(url: string | undefined): URL | undefined {
  if (!url || !/^https?:\/\//i.test(url)) return undefined;
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}

/** `host:port` of a CONNECT, as the https URL it stands for (port 443 = the default, so it disappears). */
function parseAuthority(authority: string | undefined): URL | undefined {
  if (!authority || /[/@?#\s]/.test(authority)) return undefined;
  try {
    return new URL(`https://${authority}/`);
  } catch {
    return undefined;
  }
}

/** Raw header pairs without the proxy's own hop-by-hop headers (order and case kept: they are part of the fingerprint). */
function stripHopByHop(raw: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (!HOP_BY_HOP.test(raw[i]!)) out.push(raw[i]!, raw[i + 1]!);
  }
  return out;
}
