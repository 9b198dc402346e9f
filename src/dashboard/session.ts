/**
 * Dashboard sessions: an API key exchanged for a signed cookie. The cookie names the key by its id (never the key
 * itself) and is checked on every request through the same key store the API uses, so a revoked key's sessions are
 * refused as soon as the key is (src/server/auth.ts). Sessions are stateless (HMAC-SHA256 over the payload, with
 * the secret of src/dashboard/secret.ts) and expire after SESSION_TTL_MS; signing out forgets the session in this
 * process and clears the cookie.
 *
 * CSRF: the cookie is SameSite=Strict, and any request other than GET/HEAD made with it must also carry
 * `x-csrf-token`, an HMAC of the session id that the page receives in the sign-in answer (a cross-site form can
 * neither read it nor set a custom header). Requests made with an API key header are not affected.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';

export const SESSION_COOKIE = 'ml_session';
export const CSRF_HEADER = 'x-csrf-token';
/** Twelve hours: a working day at the dashboard, after which the key is asked for again. */
export const SESSION_TTL_MS = 12 * 3_600_000;

const payloadSchema = z.object({ k: z.string().min(1), s: z.string().min(1), e: z.number().int() }).strict();

export interface Session {
  keyId: string;
  /** Random id: what sign-out forgets and what the CSRF token is derived from. */
  id: string;
  /** epoch ms */
  expiresAt: number;
}

export type SessionRead = { ok: true; session: Session } | { ok: false; reason: 'forged' | 'expired' | 'ended' };

export class SessionSigner {
  /** Sessions signed out in this process, until they would have expired anyway. */
  private readonly ended = new Map<string, number>();

  constructor(
    private readonly secret: Buffer,
    private readonly clock: () => number = Date.now,
    readonly ttlMs = SESSION_TTL_MS,
  ) {}

  /** A new session for the key: the cookie's value and the CSRF token the page must send back. */
  issue(keyId: string): { session: Session; cookieValue: string; csrfToken: string } {
    const session: Session = { keyId, id: randomBytes(16).toString('base64url'), expiresAt: this.clock() + this.ttlMs };
    const body = Buffer.from(JSON.stringify({ k: keyId, s: session.id, e: session.expiresAt })).toString('base64url');
    return { session, cookieValue: `${body}.${this.mac('session', body)}`, csrfToken: this.csrfToken(session) };
  }

  /** The session a cookie value names, when its signature holds, it has not expired and was not signed out. */
  read(cookieValue: string): SessionRead {
    const dot = cookieValue.indexOf('.');
    if (dot <= 0) return { ok: false, reason: 'forged' };
    const body = cookieValue.slice(0, dot);
    if (!equalText(cookieValue.slice(dot + 1), this.mac('session', body))) return { ok: false, reason: 'forged' };
    let json: unknown;
    try {
      json = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
    } catch {
      return { ok: false, reason: 'forged' };
    }
    const parsed = payloadSchema.safeParse(json);
    if (!parsed.success) return { ok: false, reason: 'forged' };
    const session: Session = { keyId: parsed.data.k, id: parsed.data.s, expiresAt: parsed.data.e };
    if (session.expiresAt <= this.clock()) return { ok: false, reason: 'expired' };
    if (this.ended.has(session.id)) return { ok: false, reason: 'ended' };
    return { ok: true, session };
  }

  csrfToken(session: Session): string {
    return this.mac('csrf', session.id);
  }

  checkCsrf(session: Session, presented: string | undefined): boolean {
    return presented !== undefined && equalText(presented, this.csrfToken(session));
  }

  /** Sign-out: this session is refused from now on (here; its cookie is cleared in the browser). */
  end(session: Session): void {
    const now = this.clock();
    for (const [id, expiresAt] of this.ended) if (expiresAt <= now) this.ended.delete(id);
    this.ended.set(session.id, session.expiresAt);
  }

  private mac(purpose: string, text: string): string {
    return createHmac('sha256', this.secret).update(`${purpose}:${text}`).digest('base64url');
  }
}

function equalText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The value of one cookie in a Cookie header, or undefined. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** The Set-Cookie header of a session (or of its removal, with `value` empty and maxAgeMs 0). */
export function sessionCookieHeader(value: string, maxAgeMs: number, secure: boolean): string {
  const attrs = [
    `${SESSION_COOKIE}=${value}`,
    'Path=/',
    `Max-Age=${Math.max(0, Math.floor(maxAgeMs / 1000))}`,
    'HttpOnly',
    'SameSite=Strict',
  ];
  if (secure) attrs.push('Secure');
  return attrs.join('; ');
}
