/**
 * A local fake marketplace on 127.0.0.1:0. Tests register handlers by path (or a fallback) and read the request log,
 * then configure it as a marketplace origin (MARKETLENS_<MP>_ORIGIN).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LoggedRequest {
  method: string;
  /** path + query, as received */
  url: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: string;
}

export type FakeHandler = (req: LoggedRequest, res: ServerResponse) => void | Promise<void>;

const notFound: FakeHandler = (_req, res) => {
  res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
};

export class FakeUpstream {
  readonly requests: LoggedRequest[] = [];
  /** `keepLog: false` for long load runs: the request log would grow without bound. */
  constructor(private readonly options: { keepLog?: boolean } = {}) {}
  private readonly routes = new Map<string, FakeHandler>();
  private fallback: FakeHandler = notFound;
  private server?: Server;
  origin = '';

  /** Handles `METHOD path` or `path` (any method); the path excludes the query string. */
  on(route: string, handler: FakeHandler): this {
    this.routes.set(route, handler);
    return this;
  }

  /** Serves a fixed body with a status and content type. */
  serve(
    route: string,
    body: string | object,
    opts: { status?: number; type?: string; headers?: Record<string, string> } = {},
  ): this {
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    const type = opts.type ?? (typeof body === 'string' ? 'text/html; charset=utf-8' : 'application/json');
    return this.on(route, (_req, res) => {
      res.writeHead(opts.status ?? 200, { 'content-type': type, ...opts.headers }).end(text);
    });
  }

  otherwise(handler: FakeHandler): this {
    this.fallback = handler;
    return this;
  }

  count(path?: string): number {
    return path === undefined ? this.requests.length : this.requests.filter((r) => r.path === path).length;
  }

  /** Forgets the request log, every route and any `otherwise` handler. */
  reset(): void {
    this.requests.length = 0;
    this.routes.clear();
    this.fallback = notFound;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.origin = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const u = new URL(req.url ?? '/', 'http://fake');
    const logged: LoggedRequest = {
      method: req.method ?? 'GET',
      url: req.url ?? '/',
      path: u.pathname,
      query: u.searchParams,
      headers: req.headers,
      body: Buffer.concat(chunks).toString('utf8'),
    };
    if (this.options.keepLog !== false) this.requests.push(logged);
    const handler = this.routes.get(`${logged.method} ${logged.path}`) ?? this.routes.get(logged.path) ?? this.fallback;
    try {
      await handler(logged, res);
    } catch (e) {
      if (!res.headersSent) res.writeHead(500).end(String(e));
    }
  }
}
