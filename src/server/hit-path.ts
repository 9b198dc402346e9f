/**
 * The cached-hit path (issue 21): a GET of an operation whose answer is fresh in this process's cache is answered
 * here, in front of Fastify, with the same bytes and headers, the same usage counting, metrics and access line as the
 * route's own handler, through the same functions. Fastify's lifecycle (request and reply objects, child logger, five
 * hooks, the header object) cost about as much as the answer itself.
 *
 * Anything else goes to Fastify untouched: another method or path, a body, a repeated parameter, an invalid query,
 * no fresh answer, a missing or bad key, the shutdown, logging at `debug`, limits shared through Redis. Until the
 * answer is certain nothing has happened that Fastify would repeat; the one exception is a request the limits refuse:
 * it was counted here, so it goes to Fastify with its verdict (handOverCounted) and the guard answers from that.
 *
 * `app.inject` calls Fastify directly, so tests that use it exercise the route; test/hit-path.test.ts holds the two
 * paths to the same answers and traces over real sockets, request by request.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import querystring from 'fast-querystring';
import type { StoredKey } from '../keys/key-store.js';
import type { KeyLimits } from '../limits/key-limits.js';
import { handOverCounted } from '../limits/http.js';
import type { LookupResult } from '../operations/lookup.js';
import type { AccessLog } from './access-log.js';
import { forEachLookupHeader, JSON_TYPE, type HitRoute } from './operation-routes.js';
import { requestIdOf } from './request-id.js';
import { clientAddress, type TrustProxyFn } from './trust-proxy.js';

export interface HitPathDeps {
  routes: Map<string, HitRoute>;
  keyOf: (headers: IncomingMessage['headers']) => StoredKey;
  limits: KeyLimits;
  accessLog: AccessLog;
  /** MARKETLENS_TRUST_PROXY: whose X-Forwarded-For names the client in the access line (as Fastify's `req.ip`). */
  trustProxy?: TrustProxyFn;
  /** `marketlens_http_requests_total` and its latency for one route's GET. */
  observer: (url: string) => (status: number, seconds: number) => void;
  /** False once shutdown began (answers then close their connection: Fastify's onSend does that). */
  ready: () => boolean;
  log: { error(obj: object, msg: string): void };
}

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * Puts the hit path in front of the server's Fastify request listener. Only when limits are checked in memory: with
 * Redis both the limits and the cache are shared, and a hit needs a round trip anyway.
 */
export function installHitPath(server: Server, deps: HitPathDeps): HitPath | undefined {
  if (!deps.limits.synchronous) return undefined;
  // Fastify's handler is the first listener (the server was created with it); the others (the connection guard's)
  // keep their place after it.
  const [fastify, ...others] = server.listeners('request') as Listener[];
  if (!fastify) throw new Error('hit path: the server has no request listener');
  const hitPath = new HitPath(deps);
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    let served: boolean;
    try {
      served = hitPath.serve(req, res);
    } catch (e) {
      // A bug here must not take the process down: Fastify answers the request, if it still can.
      deps.log.error({ err: e }, 'cached-hit path failed');
      if (res.headersSent) res.destroy();
      served = res.headersSent;
    }
    if (!served) fastify(req, res);
  });
  for (const l of others) server.on('request', l);
  return hitPath;
}

interface RouteHit {
  route: HitRoute;
  observe: (status: number, seconds: number) => void;
}

export class HitPath {
  /** Requests answered here (the rest went to Fastify). */
  served = 0;
  private readonly routes = new Map<string, RouteHit>();

  constructor(private readonly deps: HitPathDeps) {
    for (const [url, route] of deps.routes) this.routes.set(url, { route, observe: deps.observer(url) });
  }

  /** Answers `req` when it is a fresh hit: true then; false when Fastify must take it. */
  serve(req: IncomingMessage, res: ServerResponse): boolean {
    const deps = this.deps;
    const started = performance.now();
    if (req.method !== 'GET' || !deps.ready()) return false;
    const headers = req.headers;
    if (headers['content-length'] !== undefined || headers['transfer-encoding'] !== undefined) return false;
    const url = req.url!;
    const q = url.indexOf('?');
    const hit = this.routes.get(q === -1 ? url : url.slice(0, q));
    // Anything in the path the router would decode, cut (`#`) or reject is no exact match: Fastify decides. The query
    // is the router's too: everything after the first `?`, parsed by the same parser.
    if (!hit) return false;
    const raw = q === -1 ? '' : url.slice(q + 1);
    const parsed = raw.length === 0 ? {} : (querystring.parse(raw) as Record<string, unknown>);
    // A repeated parameter (Fastify's route joins it into a comma list) is left to Fastify.
    for (const k in parsed) if (Array.isArray(parsed[k])) return false;
    const query = hit.route.validate(parsed);
    if (!query) return false;
    let result: LookupResult | undefined;
    let body: Buffer | string;
    let key: StoredKey;
    try {
      result = hit.route.freshHit(query, headers['cache-control']);
      if (!result) return false;
      body = hit.route.present(result);
      key = deps.keyOf(headers);
    } catch {
      // Fastify's handler meets the same error and answers it.
      return false;
    }
    const check = deps.limits.checkInMemory(key);
    if (check.error) {
      handOverCounted(req, key, check);
      return false;
    }
    hit.route.count(result);
    const id = requestIdOf(headers);
    // Fastify's order: the request id (onRequest), the limits (guard), the lookup's, then type and length.
    const out: string[] = ['x-request-id', id];
    if (check.headers) {
      out.push('ratelimit-limit', String(check.headers.limit));
      out.push('ratelimit-remaining', String(check.headers.remaining));
      out.push('ratelimit-reset', String(check.headers.reset));
    }
    forEachLookupHeader(result, (name, value) => out.push(name, value));
    out.push('content-type', JSON_TYPE, 'content-length', String(Buffer.byteLength(body)));
    res.writeHead(200, out);
    res.end(body);
    const ms = performance.now() - started;
    hit.observe(200, ms / 1000);
    if (deps.accessLog.writes) deps.accessLog.completed(id, 'GET', url, clientAddress(req, deps.trustProxy), 200, ms);
    this.served++;
    return true;
  }
}
