/**
 * The dashboard's own routes: the page at `/`, its fingerprinted assets, and the session (sign in with an API key,
 * read the session, sign out). Everything else the page shows comes from the normal `/api/v1/...` routes, called
 * with the session cookie (src/server/auth.ts), under the key's own limits.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import { z } from 'zod';
import { MarketlensError } from '../errors.js';
import type { KeyStore, StoredKey } from '../keys/key-store.js';
import type { KeyLimits } from '../limits/key-limits.js';
import { setRateLimitHeaders } from '../limits/http.js';
import { callerKey } from '../server/auth.js';
import { ASSET_PREFIX, encodingFor, type Asset, type DashboardAssets } from './assets.js';
import { SESSION_COOKIE, SessionSigner, cookieValue, sessionCookieHeader, type Session } from './session.js';

export const SESSION_PATH = '/dashboard/session';

export interface DashboardDeps {
  /** Absent when the page's files are missing: the session routes still work, the page is a 404. */
  assets?: DashboardAssets;
  sessions: SessionSigner;
  keys: KeyStore;
  limits: KeyLimits;
  /** The guard every keyed route uses: authentication (key or session) and the key's limits. */
  guard: onRequestHookHandler;
}

const signInSchema = z.object({ key: z.string().min(1).max(200) }).strict();

export function registerDashboardRoutes(app: FastifyInstance, deps: DashboardDeps): void {
  const { assets, sessions, keys, limits } = deps;
  if (assets) registerPage(app, assets);

  // Sign in: the key is checked like an API request's (and counted as one), then exchanged for the cookie. The key
  // itself goes nowhere: not into the cookie, the answer or the log (the body is not logged).
  app.post(SESSION_PATH, { schema: { hide: true, body: signInSchema } }, async (req, reply) => {
    const { key: presented } = req.body as z.infer<typeof signInSchema>;
    const key = callerKey(keys)({ 'x-api-key': presented });
    const check = await limits.check(key);
    setRateLimitHeaders(reply, check.headers);
    if (check.error) throw check.error;
    const issued = sessions.issue(key.id);
    reply.header('set-cookie', sessionCookieHeader(issued.cookieValue, sessions.ttlMs, isHttps(req)));
    reply.header('cache-control', 'no-store');
    return reply.code(201).send(sessionView(key, issued.session, issued.csrfToken));
  });

  // The page asks on load whether it is signed in (and gets the CSRF token again after a reload).
  app.get(SESSION_PATH, { schema: { hide: true }, onRequest: deps.guard }, async (req, reply) => {
    const session = currentSession(req, sessions);
    reply.header('cache-control', 'no-store');
    return sessionView(req.apiKey!, session, sessions.csrfToken(session));
  });

  // Sign out (a state change: the CSRF token is required, by the guard).
  app.delete(SESSION_PATH, { schema: { hide: true }, onRequest: deps.guard }, async (req, reply) => {
    sessions.end(currentSession(req, sessions));
    reply.header('set-cookie', sessionCookieHeader('', 0, isHttps(req)));
    return reply.code(204).send();
  });
}

/** The session of a request the guard let through with a cookie; a key sent in a header has none. */
function currentSession(req: FastifyRequest, sessions: SessionSigner): Session {
  const value = cookieValue(req.headers.cookie, SESSION_COOKIE);
  const read = value === undefined ? undefined : sessions.read(value);
  if (!read?.ok || req.headers['x-api-key'] !== undefined || req.headers.authorization !== undefined) {
    throw new MarketlensError('invalid_api_key', 'This route needs the session cookie of a dashboard sign-in');
  }
  return read.session;
}

function sessionView(key: StoredKey, session: Session, csrfToken: string) {
  return {
    key: { id: key.id, name: key.name, prefix: key.prefix },
    expires_at: new Date(session.expiresAt).toISOString(),
    csrf_token: csrfToken,
  };
}

/** `request.protocol` follows X-Forwarded-Proto only when Fastify is told to trust the proxy. */
function isHttps(req: FastifyRequest): boolean {
  return req.protocol === 'https';
}

function sendAsset(req: FastifyRequest, reply: FastifyReply, asset: Asset) {
  const { body, encoding } = encodingFor(asset, req.headers['accept-encoding']);
  reply.header('vary', 'accept-encoding').type(asset.type);
  if (encoding) reply.header('content-encoding', encoding);
  return reply.send(body);
}

/** The page at `/` and its fingerprinted assets. */
function registerPage(app: FastifyInstance, assets: DashboardAssets): void {
  const csp = [
    "default-src 'self'",
    `script-src 'self' '${assets.importMapHash}'`,
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'self'",
  ].join('; ');

  app.get('/', { schema: { hide: true } }, async (req, reply) => {
    reply.header('cache-control', 'no-cache').header('content-security-policy', csp);
    return sendAsset(req, reply, assets.html);
  });

  app.get<{ Params: { name: string } }>(`${ASSET_PREFIX}:name`, { schema: { hide: true } }, async (req, reply) => {
    const asset = assets.byName.get(req.params.name);
    if (!asset) throw new MarketlensError('route_not_found', `No dashboard asset ${req.params.name}`);
    reply.header('cache-control', 'public, max-age=31536000, immutable');
    return sendAsset(req, reply, asset);
  });
}
