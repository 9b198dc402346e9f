/**
 * CONTRACT §2: `x-api-key` → the caller's key; `Authorization: Bearer <key>` is accepted as the same key when
 * `x-api-key` is absent (CONTRACT §8, clients with an "oauth" mode). Missing → 401 missing_api_key; unknown, or
 * two different keys → 401 invalid_api_key; revoked → 403 key_disabled. The key is never logged (pino redacts
 * both headers). The hit path stays synchronous in effect: no allocation unless a Bearer header is sent.
 *
 * Without either header, the dashboard's session cookie (src/dashboard/session.ts) stands for its key: resolved to
 * the key on every request through the same in-memory check, so a revoked key's sessions stop with it, and the
 * session's requests count against that key's limits like the key's own. A session request that changes state must
 * carry the session's CSRF token. A bad, expired or revoked session is a 401 invalid_api_key.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { MarketlensError } from '../errors.js';
import type { KeyStore, StoredKey } from '../keys/key-store.js';
import { CSRF_HEADER, SESSION_COOKIE, cookieValue, type SessionSigner } from '../dashboard/session.js';

declare module 'fastify' {
  interface FastifyRequest {
    apiKey?: StoredKey;
  }
}

const HOW = 'Send your API key in the x-api-key header (or as Authorization: Bearer <key>)';

/**
 * The async onRequest hook for routes that only need the caller's key.
 * @example app.route({ ..., onRequest: makeAuthenticate(keys) })
 */
export function makeAuthenticate(keys: KeyStore, sessions?: SessionSigner) {
  const identify = identifyCaller(keys, sessions);
  return async function authenticate(req: FastifyRequest, _reply: FastifyReply): Promise<void> {
    identify(req);
  };
}

/** Sets `req.apiKey` from the presented key, synchronously, or throws the 401/403 (guardWithLimits runs it inline). */
export function identifyCaller(keys: KeyStore, sessions?: SessionSigner): (req: FastifyRequest) => void {
  const keyOf = callerKey(keys, sessions);
  return function identify(req: FastifyRequest): void {
    req.apiKey = keyOf(req.headers, req.method);
  };
}

/**
 * The caller's stored key from the request headers, or throws the 401/403. No side effect: the cached-hit path
 * (hit-path.ts) calls it before deciding whether to answer or to hand the request to Fastify.
 */
export function callerKey(
  keys: KeyStore,
  sessions?: SessionSigner,
): (headers: IncomingHttpHeaders, method?: string) => StoredKey {
  return function keyOf(headers: IncomingHttpHeaders, method = 'GET'): StoredKey {
    const header = headers['x-api-key'];
    let presented = Array.isArray(header) ? header[0] : header;
    let where = 'x-api-key';
    const authorization = headers.authorization;
    if (authorization !== undefined) {
      const bearer = bearerToken(authorization);
      if (bearer !== undefined) {
        if (!presented) {
          presented = bearer;
          where = 'Authorization: Bearer';
        } else if (bearer !== presented) {
          throw new MarketlensError(
            'invalid_api_key',
            'x-api-key and Authorization: Bearer carry different keys; send one key',
          );
        }
      }
    }
    if (!presented) {
      if (sessions && headers.cookie !== undefined) {
        const session = sessionKey(keys, sessions, headers, method);
        if (session) return session;
      }
      throw new MarketlensError('missing_api_key', HOW);
    }
    const check = keys.verify(presented);
    if (!check.ok) {
      if (check.reason === 'disabled') throw new MarketlensError('key_disabled', 'This API key has been revoked');
      throw new MarketlensError(
        'invalid_api_key',
        `The API key in ${where} is not valid (x-api-key or Authorization: Bearer)`,
      );
    }
    return check.key;
  };
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The key a session cookie stands for; undefined when the request has no session cookie; else the 401. */
function sessionKey(
  keys: KeyStore,
  sessions: SessionSigner,
  headers: IncomingHttpHeaders,
  method: string,
): StoredKey | undefined {
  const value = cookieValue(headers.cookie, SESSION_COOKIE);
  if (!value) return undefined;
  const read = sessions.read(value);
  if (!read.ok) {
    throw new MarketlensError(
      'invalid_api_key',
      read.reason === 'forged'
        ? 'The session cookie is not valid: sign in again'
        : 'The session has ended: sign in again',
    );
  }
  const check = keys.verifyId(read.session.keyId);
  if (!check.ok)
    throw new MarketlensError('invalid_api_key', "The session's API key is no longer valid: sign in again");
  if (!SAFE_METHODS.has(method)) {
    const token = headers[CSRF_HEADER];
    if (!sessions.checkCsrf(read.session, Array.isArray(token) ? token[0] : token)) {
      throw new MarketlensError(
        'invalid_api_key',
        `A ${method} made with the session cookie needs the ${CSRF_HEADER} header given at sign-in`,
      );
    }
  }
  return check.key;
}

/** The token of `Bearer <token>` (scheme case-insensitive, RFC 9110 §11.1); undefined for other schemes. */
function bearerToken(authorization: string): string | undefined {
  const m = /^bearer +(\S+) *$/i.exec(authorization);
  return m ? m[1] : undefined;
}
